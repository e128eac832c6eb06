//===- LoomOps.cpp - loom dialect operations ------------------------------===//
//
// Verifiers and the cost interface of every loom op. FLOP counts of the
// vector (non-MXU) ops are per-element approximations; each names its count
// beside it. Matmul and attention counts are exact.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "LayerBody.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace loom;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return tensorType(value).getShape();
}

/// Product of all but the innermost dimension.
static int64_t leadingElements(RankedTensorType type) {
  Count rows = 1;
  for (int64_t dim : type.getShape().drop_back())
    rows *= dim;
  return rows.get();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(shape, os, ", ");
  os << "]";
  return text;
}

static LogicalResult verifyRank(Operation *op, Value value, int64_t rank,
                                StringRef name, StringRef layout) {
  if (tensorType(value).getRank() == rank)
    return success();
  return op->emitOpError() << "expects " << name << " of rank " << rank << " "
                           << layout << ", got "
                           << shapeString(shapeOf(value));
}

static LogicalResult verifySameType(Operation *op, Value a, Value b,
                                    StringRef nameA, StringRef nameB) {
  if (a.getType() == b.getType())
    return success();
  return op->emitOpError() << "expects " << nameA << " and " << nameB
                           << " of the same type, got " << a.getType()
                           << " and " << b.getType();
}

static LogicalResult verifyFloat(Operation *op, Value value, StringRef name) {
  if (isa<FloatType>(tensorType(value).getElementType()))
    return success();
  return op->emitOpError() << "expects " << name
                           << " to have a floating-point element type, got "
                           << value.getType();
}

/// A per-sample vector `[B, H]` broadcast over the sequence of `x: [B, S, H]`.
static LogicalResult verifyPerSample(Operation *op, Value x, Value vec,
                                     StringRef name) {
  if (failed(verifyRank(op, x, 3, "input", "[batch, seq, hidden]")) ||
      failed(verifyRank(op, vec, 2, name, "[batch, hidden]")))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x), vs = shapeOf(vec);
  if (xs[0] != vs[0] || xs[2] != vs[1])
    return op->emitOpError()
           << "expects " << name << " of shape [" << xs[0] << ", " << xs[2]
           << "] (batch, hidden of the input), got " << shapeString(vs);
  if (tensorType(x).getElementType() != tensorType(vec).getElementType())
    return op->emitOpError() << "expects " << name
                             << " to have the input's element type";
  return success();
}

/// A precision Loom prices: int8 or bf16.
static LogicalResult verifyStorageType(Operation *op, std::optional<Type> type,
                                       StringRef name) {
  if (!type || type->isInteger(8) || type->isBF16())
    return success();
  return op->emitOpError() << "expects " << name << " i8 or bf16, got "
                           << *type;
}

static LogicalResult verifyNotScalar(Operation *op, Value value) {
  if (tensorType(value).getRank() > 0)
    return success();
  return op->emitOpError() << "expects a tensor of rank >= 1, got "
                           << value.getType();
}

static int64_t padTo(int64_t dim, int64_t tile) {
  int64_t rest = dim % tile;
  return rest ? (Count(dim) + (tile - rest)).get() : dim;
}

static int64_t elementsOf(Value value) { return getNumElements(value.getType()); }

/// `flops` vector operations for each element of `value`.
static int64_t perElement(int64_t flops, Value value) {
  return (Count(flops) * elementsOf(value)).get();
}

//===----------------------------------------------------------------------===//
// LayerOp / YieldOp / ParamOp
//===----------------------------------------------------------------------===//

template <typename Fn>
static int64_t sumBody(LayerOp layer, Fn fn) {
  Count total = 0;
  for (Operation &op : layer.getBody().front())
    if (auto cost = dyn_cast<CostOpInterface>(op))
      total += fn(cost);
  return total.get();
}

LogicalResult loom::verifyLayerBody(Operation *layer, Block &body) {
  ValueRange inputs = layer->getOperands();
  if (body.getNumArguments() != inputs.size())
    return layer->emitOpError() << "has " << inputs.size()
                                << " inputs but its body takes "
                                << body.getNumArguments() << " arguments";
  for (auto [i, input, arg] : llvm::enumerate(inputs, body.getArguments()))
    if (input.getType() != arg.getType())
      return layer->emitOpError()
             << "input #" << i << " has type " << input.getType()
             << " but body argument #" << i << " has type " << arg.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return layer->emitOpError() << "body must end with loom.yield";
  if (yield.getValues().getTypes() != layer->getResultTypes())
    return yield.emitOpError()
           << "yields " << yield.getValues().size()
           << " values whose types do not match the layer's "
           << layer->getNumResults() << " result types";
  return success();
}

LogicalResult LayerOp::verifyRegions() {
  if (failed(verifyLayerBody(*this, getBody().front())))
    return failure();
  // A stage is a place in the function's pipeline: without one it means
  // nothing, and the lowering would index stages that do not exist.
  if (getStage() && !getPipeline((*this)->getParentOp()))
    return emitOpError() << "is on stage " << *getStage()
                         << ", but its function has no '" << kPipelineAttrName
                         << "' (loom-partition-layers sets both)";
  return success();
}

int64_t LayerOp::getFlops() {
  return sumBody(*this, [](CostOpInterface op) { return op.getFlops(); });
}
int64_t LayerOp::getPaddedFlops(int64_t tile) {
  return sumBody(*this,
                 [&](CostOpInterface op) { return op.getPaddedFlops(tile); });
}
int64_t LayerOp::getParameterCount() {
  return sumBody(*this, [](CostOpInterface op) { return op.getParameterCount(); });
}
int64_t LayerOp::getParameterBytes() {
  return sumBody(*this, [](CostOpInterface op) { return op.getParameterBytes(); });
}
int64_t LayerOp::getBytesRead() {
  return sumBody(*this, [](CostOpInterface op) { return op.getBytesRead(); });
}
int64_t LayerOp::getBytesWritten() {
  return sumBody(*this, [](CostOpInterface op) { return op.getBytesWritten(); });
}
int64_t LayerOp::getKVCacheBytes() {
  return sumBody(*this, [](CostOpInterface op) { return op.getKVCacheBytes(); });
}

int64_t YieldOp::getFlops() { return 0; }
// Yielding hands values on; it moves no bytes.
int64_t YieldOp::getBytesRead() { return 0; }

int64_t ParamOp::getFlops() { return 0; }
int64_t ParamOp::getParameterCount() { return elementsOf(getResult()); }
// The consumer reads the weight; declaring it moves no bytes.
int64_t ParamOp::getBytesRead() { return 0; }
int64_t ParamOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// Embeddings and projections
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  RankedTensorType ids = tensorType(getIds()), out = tensorType(getResult());
  if (!ids.getElementType().isInteger())
    return emitOpError() << "expects integer ids, got " << ids;
  if (failed(verifyFloat(*this, getResult(), "the result")))
    return failure();
  if (out.getRank() != ids.getRank() + 1 ||
      out.getShape().drop_back() != ids.getShape())
    return emitOpError() << "expects the result shape to be the ids shape "
                         << shapeString(ids.getShape())
                         << " plus a hidden dimension, got "
                         << shapeString(out.getShape());
  return success();
}

int64_t EmbedOp::getFlops() { return 0; }
int64_t EmbedOp::getParameterCount() {
  return (Count(getVocab()) * tensorType(getResult()).getShape().back()).get();
}
// Only the looked-up rows leave HBM.
int64_t EmbedOp::getBytesRead() {
  return (Count(getTensorBytes(getIds().getType())) +
          getTensorBytes(getResult().getType()))
      .get();
}

LogicalResult PositionEmbedOp::verify() {
  if (failed(verifyRank(*this, getInput(), 3, "input", "[batch, seq, hidden]")) ||
      failed(verifySameType(*this, getInput(), getResult(), "input", "result")))
    return failure();
  int64_t seq = shapeOf(getInput())[1];
  if (seq > static_cast<int64_t>(getMaxPositions()))
    return emitOpError() << "sequence length " << seq
                         << " exceeds max_positions " << getMaxPositions();
  return success();
}

int64_t PositionEmbedOp::getFlops() { return elementsOf(getResult()); }
int64_t PositionEmbedOp::getParameterCount() {
  return (Count(getMaxPositions()) * shapeOf(getInput()).back()).get();
}
int64_t PositionEmbedOp::getBytesRead() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  return (Count(getTensorBytes(getInput().getType())) +
          Count(shape[1]) * shape[2] * getElementBytes(getInput().getType()))
      .get();
}

LogicalResult LinearOp::verify() {
  RankedTensorType in = tensorType(getInput()), out = tensorType(getResult());
  if (in.getRank() < 2 || in.getRank() != out.getRank())
    return emitOpError() << "expects input and result of the same rank >= 2, got "
                         << shapeString(in.getShape()) << " and "
                         << shapeString(out.getShape());
  if (in.getShape().drop_back() != out.getShape().drop_back())
    return emitOpError() << "expects input and result to agree on all but the "
                            "last dimension, got "
                         << shapeString(in.getShape()) << " and "
                         << shapeString(out.getShape());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "expects input and result of the same element type";
  if (failed(verifyStorageType(*this, getWeightType(), "weight_type")) ||
      failed(verifyStorageType(*this, getComputeType(), "compute_type")))
    return failure();
  if (getComputeType() && getComputeType()->isInteger(8) &&
      !(getWeightType() && getWeightType()->isInteger(8)))
    return emitOpError() << "computes int8 x int8 (compute_type = i8) but "
                            "its weights are not int8 (weight_type = i8)";
  return verifyFloat(*this, getInput(), "the input");
}

int64_t LinearOp::getInFeatures() { return shapeOf(getInput()).back(); }
int64_t LinearOp::getOutFeatures() { return shapeOf(getResult()).back(); }
int64_t LinearOp::getRows() { return leadingElements(tensorType(getInput())); }

int64_t LinearOp::getFlops() {
  Count flops = Count(2) * getRows() * getInFeatures() * getOutFeatures();
  if (getBias())
    flops += Count(getRows()) * getOutFeatures();
  return flops.get();
}

int64_t LinearOp::getPaddedFlops(int64_t tile) {
  Count flops = Count(2) * getRows() * padTo(getInFeatures(), tile) *
                padTo(getOutFeatures(), tile);
  if (getBias())
    flops += Count(getRows()) * getOutFeatures();
  return flops.get();
}

int64_t LinearOp::getParameterCount() {
  if (getTied())
    return 0;
  return (Count(getInFeatures()) * getOutFeatures() +
          (getBias() ? getOutFeatures() : 0))
      .get();
}

int64_t LinearOp::getWeightElementBytes() {
  if (std::optional<Type> type = getWeightType())
    return getElementBytes(*type);
  return getElementBytes(getInput().getType());
}

int64_t LinearOp::getParameterBytes() {
  return (Count(getParameterCount()) * getWeightElementBytes()).get();
}

unsigned LinearOp::getComputeBits() {
  if (std::optional<Type> type = getComputeType())
    return 8 * getElementBytes(*type);
  return 8 * getElementBytes(getResult().getType());
}

// A tied weight is still read, though it is counted once as a parameter.
int64_t LinearOp::getBytesRead() {
  Count weights = Count(getInFeatures()) * getOutFeatures() +
                  (getBias() ? getOutFeatures() : 0);
  return (Count(getTensorBytes(getInput().getType())) +
          weights * getWeightElementBytes())
      .get();
}

/// Checks a latent `[B, C, H, W]` or video latent `[B, C, F, H, W]`
/// against patches of `patchT x p x p` and returns the token count.
static FailureOr<int64_t> patchTokens(Operation *op, Value latent, int64_t p,
                                      std::optional<int64_t> patchT,
                                      StringRef name) {
  int64_t rank = tensorType(latent).getRank();
  if (rank != 4 && rank != 5)
    return op->emitOpError()
           << "expects " << name << " of rank 4 [batch, channels, height, "
           << "width] or 5 [batch, channels, frames, height, width], got "
           << shapeString(shapeOf(latent));
  if (patchT && rank == 4)
    return op->emitOpError() << "has patch_t but an image (rank 4) " << name;
  ArrayRef<int64_t> in = shapeOf(latent);
  int64_t h = in[rank - 2], w = in[rank - 1], pt = patchT.value_or(1);
  if (h % p != 0 || w % p != 0)
    return op->emitOpError() << "expects height and width divisible by "
                             << "patch_size " << p << ", got " << h << "x" << w;
  Count patches = Count(h / p) * (w / p);
  if (rank == 5) {
    if (in[2] % pt != 0)
      return op->emitOpError() << "expects frames divisible by patch_t " << pt
                               << ", got " << in[2];
    patches = patches * (in[2] / pt);
  }
  return patches.get();
}

LogicalResult PatchifyOp::verify() {
  if (failed(verifyRank(*this, getResult(), 3, "result", "[batch, patches, hidden]")))
    return failure();
  FailureOr<int64_t> patches =
      patchTokens(*this, getInput(), getPatchSize(), getPatchT(), "input");
  if (failed(patches))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  if (out[0] != in[0] || out[1] != *patches)
    return emitOpError() << "expects result shape [" << in[0] << ", "
                         << describeCount(*patches) << ", hidden], got "
                         << shapeString(out);
  return verifyFloat(*this, getResult(), "the result");
}

static int64_t patchInputs(PatchifyOp op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  return (Count(in[1]) * op.getPatchSize() * op.getPatchSize() *
          op.getPatchT().value_or(1))
      .get();
}

// Convolution as a matmul, plus its bias and the sin-cos position add.
int64_t PatchifyOp::getFlops() {
  ArrayRef<int64_t> out = shapeOf(getResult());
  Count tokens = Count(out[0]) * out[1];
  return (Count(2) * tokens * patchInputs(*this) * out[2] +
          Count(2) * tokens * out[2])
      .get();
}
int64_t PatchifyOp::getPaddedFlops(int64_t tile) {
  ArrayRef<int64_t> out = shapeOf(getResult());
  Count tokens = Count(out[0]) * out[1];
  return (Count(2) * tokens * padTo(patchInputs(*this), tile) *
              padTo(out[2], tile) +
          Count(2) * tokens * out[2])
      .get();
}

int64_t PatchifyOp::getParameterCount() {
  int64_t hidden = shapeOf(getResult())[2];
  return (Count(patchInputs(*this)) * hidden + hidden).get();
}

LogicalResult UnpatchifyOp::verify() {
  if (failed(verifyRank(*this, getInput(), 3, "input", "[batch, patches, p*p*channels]")))
    return failure();
  int64_t p = getPatchSize();
  FailureOr<int64_t> patches =
      patchTokens(*this, getResult(), p, getPatchT(), "result");
  if (failed(patches))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  if (tensorType(getInput()).getElementType() !=
      tensorType(getResult()).getElementType())
    return emitOpError() << "expects input and result of the same element type";
  int64_t features = (Count(p) * p * out[1] * getPatchT().value_or(1)).get();
  if (in[0] != out[0] || in[1] != *patches || in[2] != features)
    return emitOpError() << "expects input shape [" << out[0] << ", "
                         << describeCount(*patches) << ", "
                         << describeCount(features) << "] for result "
                         << shapeString(out) << ", got " << shapeString(in);
  return success();
}

int64_t UnpatchifyOp::getFlops() { return 0; }

LogicalResult TimestepEmbedOp::verify() {
  if (failed(verifyRank(*this, getInput(), 1, "input", "[batch]")) ||
      failed(verifyRank(*this, getResult(), 2, "result", "[batch, dim]")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  if (in[0] != out[0])
    return emitOpError() << "expects the result batch " << out[0]
                         << " to equal the input batch " << in[0];
  if (out[1] % 2 != 0)
    return emitOpError() << "expects an even embedding dim (sin and cos "
                            "halves), got "
                         << out[1];
  return verifyFloat(*this, getResult(), "the result");
}

// A multiply and a sin or cos per element.
int64_t TimestepEmbedOp::getFlops() { return perElement(2, getResult()); }

//===----------------------------------------------------------------------===//
// Normalisation, activations, elementwise
//===----------------------------------------------------------------------===//

template <typename NormOp>
static LogicalResult verifyNorm(NormOp op) {
  if (failed(verifySameType(op, op.getInput(), op.getResult(), "input", "result")) ||
      failed(verifyFloat(op, op.getInput(), "the input")) ||
      failed(verifyNotScalar(op, op.getInput())))
    return failure();
  int64_t last = shapeOf(op.getInput()).back();
  if (last % op.getGroupSize() != 0)
    return op.emitOpError() << "expects group " << op.getGroupSize()
                            << " to divide the innermost dimension " << last;
  return success();
}

template <typename NormOp>
static int64_t normGroupSize(NormOp op) {
  if (std::optional<int64_t> group = op.getGroup())
    return *group;
  return shapeOf(op.getInput()).back();
}

LogicalResult RMSNormOp::verify() { return verifyNorm(*this); }
int64_t RMSNormOp::getGroupSize() { return normGroupSize(*this); }
// Square, accumulate, scale by rsqrt, multiply by the learned scale.
int64_t RMSNormOp::getFlops() { return perElement(4, getResult()); }
int64_t RMSNormOp::getParameterCount() { return getAffine() ? getGroupSize() : 0; }

LogicalResult LayerNormOp::verify() { return verifyNorm(*this); }
int64_t LayerNormOp::getGroupSize() { return normGroupSize(*this); }
// Mean and variance passes (4), normalise (2), scale and shift (2).
int64_t LayerNormOp::getFlops() { return perElement(8, getResult()); }
int64_t LayerNormOp::getParameterCount() {
  return getAffine() ? (Count(2) * getGroupSize()).get() : 0;
}

LogicalResult RoPEOp::verify() {
  if (failed(verifySameType(*this, getInput(), getResult(), "input", "result")) ||
      failed(verifyFloat(*this, getInput(), "the input")) ||
      failed(verifyNotScalar(*this, getInput())))
    return failure();
  int64_t last = shapeOf(getInput()).back();
  if (getHeadDim() % 2 != 0 || last % getHeadDim() != 0)
    return emitOpError() << "expects an even head_dim dividing the innermost "
                            "dimension "
                         << last << ", got head_dim " << getHeadDim();
  return success();
}

// Two multiplies and an add per element.
int64_t RoPEOp::getFlops() { return perElement(3, getResult()); }

LogicalResult ActivationOp::verify() {
  if (failed(verifySameType(*this, getInput(), getResult(), "input", "result")))
    return failure();
  return verifyFloat(*this, getInput(), "the input");
}

int64_t ActivationOp::getFlops() {
  // Approximate vector work per element: gelu and its tanh form ~8
  // (polynomial or tanh plus the products), silu ~4 (exp, add, divide,
  // multiply), relu 1.
  int64_t flops = 1;
  switch (getKind()) {
  case ActivationKind::gelu:
  case ActivationKind::gelu_tanh:
    flops = 8;
    break;
  case ActivationKind::silu:
    flops = 4;
    break;
  case ActivationKind::relu:
    flops = 1;
    break;
  case ActivationKind::softcap:
    // Divide, tanh, multiply.
    flops = 3;
    break;
  }
  return perElement(flops, getResult());
}

LogicalResult DropoutOp::verify() {
  double rate = getRate().convertToDouble();
  if (!(rate >= 0 && rate < 1))
    return emitOpError() << "rate must be in [0, 1), got " << rate;
  return verifyFloat(*this, getInput(), "the input");
}

// The draw's compare and the scaled select.
int64_t DropoutOp::getFlops() { return perElement(2, getResult()); }

LogicalResult SwiGLUOp::verify() {
  if (failed(verifySameType(*this, getGate(), getUp(), "gate", "up")) ||
      failed(verifySameType(*this, getGate(), getResult(), "gate", "result")))
    return failure();
  return verifyFloat(*this, getGate(), "gate");
}

// silu (4) and the product (1).
int64_t SwiGLUOp::getFlops() { return perElement(5, getResult()); }

template <typename BinaryOp>
static LogicalResult verifyBinary(BinaryOp op) {
  if (failed(verifySameType(op, op.getLhs(), op.getResult(), "lhs", "result")))
    return failure();
  RankedTensorType lhs = tensorType(op.getLhs()), rhs = tensorType(op.getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return op.emitOpError() << "expects operands of the same element type, got "
                            << lhs << " and " << rhs;
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  if (r.size() > l.size() || l.take_back(r.size()) != r)
    return op.emitOpError() << "expects the rhs shape " << shapeString(r)
                            << " to equal or be a suffix of the lhs shape "
                            << shapeString(l);
  return success();
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
int64_t AddOp::getFlops() { return elementsOf(getResult()); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
int64_t MulOp::getFlops() { return elementsOf(getResult()); }

LogicalResult ModulateOp::verify() {
  if (failed(verifySameType(*this, getInput(), getResult(), "input", "result")) ||
      failed(verifySameType(*this, getShift(), getScale(), "shift", "scale")))
    return failure();
  return verifyPerSample(*this, getInput(), getShift(), "shift");
}

int64_t ModulateOp::getFlops() { return perElement(2, getResult()); }

LogicalResult GateOp::verify() {
  if (failed(verifySameType(*this, getInput(), getResult(), "input", "result")))
    return failure();
  return verifyPerSample(*this, getInput(), getGate(), "gate");
}

int64_t GateOp::getFlops() { return elementsOf(getResult()); }

//===----------------------------------------------------------------------===//
// Shape plumbing
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expects at least one input";
  RankedTensorType result = tensorType(getResult());
  int64_t dim = getDim();
  if (dim >= result.getRank())
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << result.getRank();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    RankedTensorType type = tensorType(input);
    SmallVector<int64_t> expected(result.getShape());
    expected[dim] = type.getRank() == result.getRank() ? type.getDimSize(dim) : -1;
    if (type.getShape() != ArrayRef<int64_t>(expected) ||
        type.getElementType() != result.getElementType())
      return emitOpError() << "input #" << i << " of shape "
                           << shapeString(type.getShape())
                           << " does not match the result "
                           << shapeString(result.getShape())
                           << " outside dimension " << dim;
    total += type.getDimSize(dim);
  }
  if (total != result.getDimSize(dim))
    return emitOpError() << "inputs add up to " << total << " along dimension "
                         << dim << " but the result has "
                         << result.getDimSize(dim);
  return success();
}

int64_t ConcatOp::getFlops() { return 0; }

LogicalResult SliceOp::verify() {
  RankedTensorType in = tensorType(getInput()), out = tensorType(getResult());
  int64_t dim = getDim();
  if (in.getRank() != out.getRank() || dim >= in.getRank())
    return emitOpError() << "expects input and result of the same rank with "
                            "dim in range, got dim "
                         << dim << " for " << shapeString(in.getShape())
                         << " -> " << shapeString(out.getShape());
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] = out.getDimSize(dim);
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "expects the result to differ from the input only "
                            "in dimension "
                         << dim;
  // Compare without adding: a huge offset must not wrap around.
  int64_t offset = getOffset();
  if (offset > in.getDimSize(dim) ||
      out.getDimSize(dim) > in.getDimSize(dim) - offset)
    return emitOpError() << "slice [" << getOffset() << ", "
                         << getOffset() + out.getDimSize(dim)
                         << ") is out of bounds for size " << in.getDimSize(dim);
  return success();
}

int64_t SliceOp::getFlops() { return 0; }

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = tensorType(getInput()), out = tensorType(getResult());
  if (getNumElements(in) != getNumElements(out) ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "cannot reshape " << in << " to " << out
                         << ": element count or type differs";
  return success();
}

int64_t ReshapeOp::getFlops() { return 0; }

LogicalResult ChunkOp::verify() {
  if (getResults().empty())
    return emitOpError() << "expects at least one result";
  RankedTensorType in = tensorType(getInput());
  Type first = getResults().front().getType();
  if (!llvm::all_equal(getResultTypes()))
    return emitOpError() << "expects all results of one type";
  RankedTensorType piece = cast<RankedTensorType>(first);
  SmallVector<int64_t> expected(in.getShape());
  int64_t count = getNumResults();
  if (in.getRank() == 0 || expected.back() % count != 0)
    return emitOpError() << "cannot split " << shapeString(in.getShape())
                         << " into " << count << " equal pieces";
  expected.back() /= count;
  if (piece.getShape() != ArrayRef<int64_t>(expected) ||
      piece.getElementType() != in.getElementType())
    return emitOpError() << "expects results of shape " << shapeString(expected)
                         << ", got " << shapeString(piece.getShape());
  return success();
}

int64_t ChunkOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  const char *layout = "[batch, seq, heads * head_dim]";
  if (failed(verifyRank(*this, getQ(), 3, "q", layout)) ||
      failed(verifyRank(*this, getK(), 3, "k", layout)) ||
      failed(verifySameType(*this, getK(), getV(), "k", "v")) ||
      failed(verifySameType(*this, getQ(), getResult(), "q", "result")))
    return failure();
  int64_t heads = getHeads(), kvHeads = getKvHeads(), headDim = getHeadDim();
  ArrayRef<int64_t> q = shapeOf(getQ()), k = shapeOf(getK());
  int64_t hidden = (Count(heads) * headDim).get();
  if (hidden != q[2])
    return emitOpError() << "heads * head_dim (" << heads << " * " << headDim
                         << " = " << describeCount(hidden)
                         << ") does not match q's hidden size " << q[2];
  if (heads % kvHeads != 0)
    return emitOpError() << "kv_heads " << kvHeads
                         << " does not divide heads " << heads;
  int64_t kvHidden = (Count(kvHeads) * headDim).get();
  if (kvHidden != k[2])
    return emitOpError() << "kv_heads * head_dim (" << kvHeads << " * "
                         << headDim << " = " << describeCount(kvHidden)
                         << ") does not match k's hidden size " << k[2];
  if (q[0] != k[0])
    return emitOpError() << "q has batch " << q[0] << " but k has batch "
                         << k[0];
  if (tensorType(getQ()).getElementType() != tensorType(getK()).getElementType())
    return emitOpError() << "expects q and k of the same element type, got "
                         << getQ().getType() << " and " << getK().getType();
  if (getCausal() && getCross())
    return emitOpError() << "cross attention cannot be causal";
  if (getCausal() && q[1] != k[1])
    return emitOpError() << "causal attention expects as many queries as new "
                            "keys, got "
                         << q[1] << " and " << k[1]
                         << " (earlier tokens belong in 'cached')";
  if (getCross() && getCached() != 0)
    return emitOpError() << "cross attention has no cached context";
  if (failed(verifyStorageType(*this, getKvType(), "kv_type")))
    return failure();
  if (getKvType() && !getCausal())
    return emitOpError() << "has a KV cache type but no KV cache (only a "
                            "causal attention keeps one)";
  if (getWindow() && !getCausal())
    return emitOpError() << "a sliding window (window = " << *getWindow()
                         << ") needs a causal attention: it keeps the latest "
                            "keys before each query";
  if (getDecodeQueryRows() && !getMaterializedScores())
    return emitOpError() << "decode_query_rows = " << *getDecodeQueryRows()
                         << " needs materialized_scores: only einsums run a "
                            "decode query as rows";
  if (getKvScalesAcrossHeads() && !getKvType())
    return emitOpError() << "kv_scales_across_heads needs a quantized KV "
                            "cache (kv_type): only its scales are reduced";
  return verifyFloat(*this, getQ(), "q");
}

/// a + (a+1) + ... + b for 0 <= a <= b, halving whichever factor is even.
static Count rangeSum(int64_t a, int64_t b) {
  int64_t n = b - a + 1;
  if (n % 2 == 0)
    return Count(n / 2) * (Count(a) + b);
  // n odd: a + b is even; halve it without overflowing.
  return Count(n) * (a / 2 + b / 2 + (a % 2 & b % 2));
}

int64_t AttentionOp::countCausalPairs(int64_t queries, int64_t before,
                                      int64_t window) {
  if (queries <= 0)
    return 0;
  // Query j (1-based) sees before + j keys, or the window when fewer.
  int64_t first = (Count(before) + 1).get(), last = (Count(before) + queries).get();
  if (window <= 0 || window >= last)
    return rangeSum(first, last).get();
  if (window <= first)
    return (Count(queries) * window).get();
  return (rangeSum(first, window) + Count(last - window) * window).get();
}

int64_t AttentionOp::getVisibleCached() {
  int64_t cached = getCached();
  if (std::optional<uint64_t> window = getWindow())
    return std::min<int64_t>(cached, *window);
  return cached;
}

int64_t AttentionOp::getScorePairs() {
  int64_t queries = shapeOf(getQ())[1], keys = shapeOf(getK())[1];
  int64_t cached = getCached();
  if (!getCausal())
    return (Count(queries) * (Count(cached) + keys)).get();
  return countCausalPairs(queries, cached, getWindow().value_or(0));
}

// QK^T and PV: 2 matmuls of 2 * head_dim FLOPs per visited pair and head.
// Both matmuls contract or produce head_dim, so a head_dim short of a tile
// pads both; the key and query counts are long and their padding is
// ignored.
static int64_t attentionFlops(int64_t batch, int64_t heads, int64_t headDim,
                              int64_t pairs) {
  return (Count(4) * batch * heads * headDim * pairs).get();
}

int64_t AttentionOp::getFlops() {
  return attentionFlops(shapeOf(getQ())[0], getHeads(), getHeadDim(),
                        getScorePairs());
}

int64_t AttentionOp::getPaddedFlops(int64_t tile) {
  return attentionFlops(shapeOf(getQ())[0], getHeads(),
                        padTo(getHeadDim(), tile), getScorePairs());
}

int64_t AttentionOp::getKVElementBytes() {
  if (std::optional<Type> type = getKvType())
    return getElementBytes(*type);
  return getElementBytes(getK().getType());
}

static int64_t cachedKVBytes(AttentionOp op, int64_t tokens) {
  ArrayRef<int64_t> k = shapeOf(op.getK());
  return (Count(2) * k[0] * tokens * k[2] * op.getKVElementBytes()).get();
}

int64_t AttentionOp::getBytesRead() {
  return (Count(getTensorBytes(getOperandTypes())) +
          cachedKVBytes(*this, getVisibleCached()))
      .get();
}

// A local (windowed) layer keeps only the window: a rolling buffer, as
// Mistral's reference code and transformers' hybrid cache do.
int64_t AttentionOp::getKVCacheBytes() {
  if (!getCausal())
    return 0;
  int64_t tokens = (Count(getCached()) + shapeOf(getK())[1]).get();
  if (std::optional<uint64_t> window = getWindow())
    tokens = std::min<int64_t>(tokens, *window);
  return cachedKVBytes(*this, tokens);
}

LogicalResult JointAttentionOp::verify() {
  const char *layout = "[batch, seq, heads * head_dim]";
  if (failed(verifyRank(*this, getQImg(), 3, "q_img", layout)) ||
      failed(verifyRank(*this, getQTxt(), 3, "q_txt", layout)))
    return failure();
  for (Value v : {getKImg(), getVImg(), getImg()})
    if (failed(verifySameType(*this, getQImg(), v, "q_img", "the image k, v and output")))
      return failure();
  for (Value v : {getKTxt(), getVTxt(), getTxt()})
    if (failed(verifySameType(*this, getQTxt(), v, "q_txt", "the text k, v and output")))
      return failure();
  ArrayRef<int64_t> img = shapeOf(getQImg()), txt = shapeOf(getQTxt());
  int64_t hidden = (Count(getHeads()) * getHeadDim()).get();
  if (img[2] != hidden || txt[2] != hidden)
    return emitOpError() << "heads * head_dim (" << getHeads() << " * "
                         << getHeadDim() << " = " << describeCount(hidden)
                         << ") does not match the image and text hidden sizes "
                         << img[2] << " and " << txt[2];
  if (tensorType(getQImg()).getElementType() !=
      tensorType(getQTxt()).getElementType())
    return emitOpError() << "expects image and text streams of the same "
                            "element type";
  if (img[0] != txt[0])
    return emitOpError() << "image batch " << img[0]
                         << " differs from text batch " << txt[0];
  if (getGroup().has_value() != getGroupSize().has_value())
    return emitOpError() << "a ring needs both 'group' and 'group_size'";
  if (getGroupSize() && *getGroupSize() < 2)
    return emitOpError() << "a ring needs at least 2 chips, got group_size "
                         << *getGroupSize();
  if (getRingText() && !getGroupSize())
    return emitOpError() << "'ring_text' passes the text's K/V round a ring, "
                            "but the op has no 'group_size'";
  return verifyFloat(*this, getQImg(), "q_img");
}

int64_t JointAttentionOp::getKeyTokens() {
  ArrayRef<int64_t> img = shapeOf(getQImg()), txt = shapeOf(getQTxt());
  int64_t n = getRingSteps();
  return (Count(img[1]) * n + Count(txt[1]) * (getRingText() ? n : 1)).get();
}

int64_t JointAttentionOp::getRingBlockBytes() {
  if (getRingSteps() <= 1)
    return 0;
  Count bytes = Count(getTensorBytes(getKImg().getType()));
  if (getRingText())
    bytes = bytes + getTensorBytes(getKTxt().getType());
  return (bytes * 2).get();
}

// Every image and text token in hand attends to every one of both (all
// the ring's blocks, as a ring).
static int64_t jointAttentionFlops(JointAttentionOp op, int64_t headDim) {
  ArrayRef<int64_t> img = shapeOf(op.getQImg()), txt = shapeOf(op.getQTxt());
  Count queries = Count(img[1]) + txt[1];
  return attentionFlops(img[0], op.getHeads(), headDim,
                        (queries * op.getKeyTokens()).get());
}

int64_t JointAttentionOp::getFlops() {
  return jointAttentionFlops(*this, getHeadDim());
}

int64_t JointAttentionOp::getPaddedFlops(int64_t tile) {
  return jointAttentionFlops(*this, padTo(getHeadDim(), tile));
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Checks `out` against `in` with dimension `dim` scaled by
/// `numerator / denominator`.
static LogicalResult verifyCollectiveTypes(Operation *op, RankedTensorType in,
                                          RankedTensorType out,
                                          std::optional<int64_t> dim,
                                          bool needsDim, int64_t numerator,
                                          int64_t denominator) {
  if (needsDim && !dim)
    return op->emitOpError() << "expects a 'dim' attribute";
  if (!needsDim && dim)
    return op->emitOpError() << "takes no 'dim' attribute";
  SmallVector<int64_t> expected(in.getShape());
  if (dim) {
    if (*dim >= in.getRank())
      return op->emitOpError() << "dim " << *dim << " is out of range for rank "
                              << in.getRank();
    int64_t scaled = (Count(expected[*dim]) * numerator).get();
    if (scaled == Count::kSaturated)
      return op->emitOpError() << "dimension " << *dim << " of size "
                              << expected[*dim] << " times group_size "
                              << numerator << " does not fit in 64 bits";
    if (scaled % denominator != 0)
      return op->emitOpError() << "dimension " << *dim << " of size "
                              << expected[*dim] << " is not divisible by "
                              << "group_size " << denominator;
    expected[*dim] = scaled / denominator;
  }
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      in.getElementType() != out.getElementType())
    return op->emitOpError() << "expects a result of shape "
                             << shapeString(expected) << ", got "
                             << shapeString(out.getShape());
  return success();
}

template <typename CollectiveOp>
static LogicalResult verifyCollective(CollectiveOp op, bool needsDim,
                                      int64_t numerator, int64_t denominator) {
  std::optional<int64_t> dim = op.getDim();
  return verifyCollectiveTypes(op, tensorType(op.getInput()),
                               tensorType(op.getResult()), dim, needsDim,
                               numerator, denominator);
}

/// Each operand and its result by the single collective's rule.
template <typename CombinedOp>
static LogicalResult verifyCombined(CombinedOp op, bool needsDim,
                                    int64_t numerator, int64_t denominator) {
  if (op.getInputs().size() < 2 ||
      op.getInputs().size() != op.getResults().size())
    return op.emitOpError() << "expects two or more operands and a result "
                               "for each, got "
                            << op.getInputs().size() << " and "
                            << op.getResults().size();
  std::optional<int64_t> dim = op.getDim();
  for (auto [in, out] : llvm::zip(op.getInputs(), op.getResults()))
    if (failed(verifyCollectiveTypes(op, tensorType(in), tensorType(out), dim,
                                     needsDim, numerator, denominator)))
      return failure();
  return success();
}

LogicalResult CombinedAllReduceOp::verify() {
  return verifyCombined(*this, false, 1, 1);
}
LogicalResult CombinedReduceScatterOp::verify() {
  return verifyCombined(*this, true, 1, getGroupSize());
}
LogicalResult CombinedAllGatherOp::verify() {
  return verifyCombined(*this, true, getGroupSize(), 1);
}
LogicalResult CombinedAllToAllOp::verify() {
  if (getInputs().size() < 2 || getInputs().size() != getResults().size())
    return emitOpError() << "expects two or more operands and a result for "
                            "each, got "
                         << getInputs().size() << " and "
                         << getResults().size();
  int64_t dim = getDim(), concat = getConcatDim();
  int64_t n = getGroupSize();
  for (auto [in, out] : llvm::zip(getInputs(), getResults())) {
    RankedTensorType inType = tensorType(in), outType = tensorType(out);
    if (dim >= inType.getRank() || concat >= inType.getRank() || dim == concat)
      return emitOpError() << "expects dim " << dim << " and concat_dim "
                           << concat << " to be two dimensions of the rank-"
                           << inType.getRank() << " operands";
    if (inType.getDimSize(dim) % n != 0)
      return emitOpError() << "dimension " << dim << " of size "
                           << inType.getDimSize(dim)
                           << " is not divisible by group_size " << n;
    SmallVector<int64_t> expected(inType.getShape());
    expected[dim] /= n;
    expected[concat] = (Count(expected[concat]) * n).get();
    if (outType.getShape() != ArrayRef<int64_t>(expected) ||
        inType.getElementType() != outType.getElementType())
      return emitOpError() << "expects a result of shape "
                           << shapeString(expected) << ", got "
                           << shapeString(outType.getShape());
  }
  return success();
}
int64_t CombinedAllToAllOp::getFlops() { return 0; }
int64_t CombinedAllReduceOp::getFlops() { return 0; }
int64_t CombinedReduceScatterOp::getFlops() { return 0; }
int64_t CombinedAllGatherOp::getFlops() { return 0; }

LogicalResult AllReduceOp::verify() { return verifyCollective(*this, false, 1, 1); }
LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, true, getGroupSize(), 1);
}
LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, true, 1, getGroupSize());
}
// Each member sends one `group_size`-th of `dim` to every other member.
LogicalResult AllToAllOp::verify() {
  std::optional<int64_t> concat = getConcatDim();
  if (!concat && failed(verifyCollective(*this, true, 1, 1)))
    return failure();
  if (concat) {
    RankedTensorType in = tensorType(getInput());
    if (!getDim() || int64_t(*getDim()) >= in.getRank())
      return emitOpError() << "expects a 'dim' within the operand's rank "
                           << in.getRank();
    if (in.getElementType() != tensorType(getResult()).getElementType())
      return emitOpError() << "expects the operand's element type";
  }
  int64_t size = tensorType(getInput()).getDimSize(*getDim());
  if (size % static_cast<int64_t>(getGroupSize()) != 0)
    return emitOpError() << "dimension " << *getDim() << " of size " << size
                         << " is not divisible by group_size " << getGroupSize();
  if (!concat)
    return success();
  // verifyCollective checked `dim`; `concat_dim` grows by the group.
  RankedTensorType in = tensorType(getInput()), out = tensorType(getResult());
  if (*concat >= in.getRank() || *concat == int64_t(*getDim()))
    return emitOpError() << "concat_dim " << *concat
                         << " must be another dimension of the rank-"
                         << in.getRank() << " operand than dim " << *getDim();
  SmallVector<int64_t> expected(in.getShape());
  expected[*getDim()] /= getGroupSize();
  expected[*concat] = (Count(expected[*concat]) * getGroupSize()).get();
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expects a result of shape "
                         << shapeString(expected) << ", got "
                         << shapeString(out.getShape());
  return success();
}

LogicalResult LocalShardOp::verify() {
  return verifyCollective(*this, true, 1, getGroupSize());
}
int64_t LocalShardOp::getFlops() { return 0; }

// Weight-gathered (Pope et al. 2023, 3.2.3): the layer's first op, over the
// tp group of a weight_gathered module, of exactly the layer's weights.
LogicalResult GatherWeightsOp::verify() {
  auto layer = cast<LayerOp>((*this)->getParentOp());
  if (&layer.getBody().front().front() != getOperation())
    return emitOpError() << "must be the first op of its loom.layer (the "
                            "layer's weights are gathered before it runs)";
  if (getGroup() != "tp")
    return emitOpError() << "gathers over the tensor-parallel group \"tp\", "
                            "got group \""
                         << getGroup() << "\"";
  int64_t weights = 0;
  for (Operation &op : layer.getBody().front())
    if (auto cost = dyn_cast<CostOpInterface>(op); cost && &op != *this)
      weights += cost.getParameterBytes();
  if (int64_t(getBytes()) != weights)
    return emitOpError() << "gathers " << getBytes()
                         << " bytes, but the layer's weights are " << weights
                         << " bytes; it must gather all of them";
  if (auto module = (*this)->getParentOfType<mlir::ModuleOp>())
    if (ParallelAttr parallel = getParallel(module);
        parallel && (!parallel.getWeightGathered() ||
                     parallel.getTp() != int64_t(getGroupSize())))
      return emitOpError()
             << "gathers over " << getGroupSize()
             << " chips, but the module's layout is " << parallel
             << "; it needs #loom.parallel<tp = " << getGroupSize()
             << ", weight_gathered = true>";
  return success();
}
int64_t GatherWeightsOp::getFlops() { return 0; }

// Communication is costed by the target's collective model, not as compute.
int64_t AllReduceOp::getFlops() { return 0; }
int64_t AllGatherOp::getFlops() { return 0; }
int64_t ReduceScatterOp::getFlops() { return 0; }
int64_t AllToAllOp::getFlops() { return 0; }

#define GET_OP_CLASSES
#include "loom/Dialect/Loom/LoomOps.cpp.inc"
