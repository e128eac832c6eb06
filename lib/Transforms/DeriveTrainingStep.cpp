//===- DeriveTrainingStep.cpp - loss, backward pass, optimizer update -----===//
//
// Reverse-mode differentiation of a loom forward graph, op by op through
// GradientOpInterface: the backward pass visits the forward's ops in
// reverse, hands each the cotangents of its results and collects those of
// its operands, summing where a value has several uses. A loom.layer
// becomes a loom.layer_grad holding its forward ops (kept from the forward
// pass) and their gradients, so that a layer's backward pass stays one
// unit the pipeline passes can place beside its forward.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace loom {
#define GEN_PASS_DEF_DERIVETRAININGSTEP
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

/// The cotangents of the values of one block, summed as they arrive.
class Cotangents {
public:
  explicit Cotangents(OpBuilder &builder) : builder(builder) {}

  Value get(Value value) const { return map.lookup(value); }

  /// Adds `cotangent` to `value`'s: a second use's cotangent is summed
  /// into the first's (a residual stream's two branches).
  void add(Value value, Value cotangent) {
    if (!cotangent)
      return;
    Value &slot = map[value];
    slot = slot ? AddOp::create(builder, value.getLoc(), slot.getType(), slot,
                                cotangent)
                      .getResult()
                : cotangent;
  }

private:
  OpBuilder &builder;
  DenseMap<Value, Value> map;
};

/// The weights of `op` as an optimizer sees them (Adafactor factors the
/// matrices): a projection's `in x out`, an embedding's `vocab x hidden`,
/// each expert's three matrices; any other parameters a vector.
SmallVector<WeightShape> weightShapes(Operation *op) {
  if (auto linear = dyn_cast<LinearOp>(op)) {
    if (linear.getTied())
      return {};
    SmallVector<WeightShape> shapes{
        {linear.getInFeatures(), linear.getOutFeatures()}};
    if (linear.getBias())
      shapes.push_back({1, linear.getOutFeatures()});
    return shapes;
  }
  if (auto embed = dyn_cast<EmbedOp>(op)) {
    auto type = cast<RankedTensorType>(embed.getResult().getType());
    return {{int64_t(embed.getVocab()), type.getShape().back()}};
  }
  if (auto experts = dyn_cast<MoEExpertsOp>(op)) {
    auto type = cast<RankedTensorType>(experts.getInput().getType());
    int64_t hidden = type.getShape().back();
    WeightShape matrix{hidden, int64_t(experts.getExpertInter())};
    int64_t matrices = 3 * experts.getLocalExperts();
    return SmallVector<WeightShape>(matrices, matrix);
  }
  int64_t count = cast<CostOpInterface>(op).getParameterCount();
  if (count == 0)
    return {};
  return {{1, count}};
}

struct DeriveTrainingStepPass
    : public loom::impl::DeriveTrainingStepBase<DeriveTrainingStepPass> {
  using DeriveTrainingStepBase::DeriveTrainingStepBase;

  /// The step's precision and optimizer, from the options.
  struct Settings {
    Optimizer optimizer;
    Type master, state, weight, grad;
  };

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Settings> settings = readOptions(module);
    if (!settings)
      return signalPassFailure();
    if (ModelAttr model = getModel(module);
        model && model.getMode() == ModelMode::decode) {
      module.emitError() << "a decode step is not trained: derive the "
                            "training step from a prefill (or DiT) module";
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(deriveFunction(func, *settings)))
        return signalPassFailure();
    }
  }

  std::optional<Settings> readOptions(ModuleOp module) {
    MLIRContext *context = module.getContext();
    Settings settings;
    std::optional<Optimizer> optimizerKind = symbolizeOptimizer(optimizer);
    if (!optimizerKind) {
      module.emitError() << "unknown optimizer '" << optimizer
                         << "' (valid: adamw, adafactor, sgd)";
      return std::nullopt;
    }
    settings.optimizer = *optimizerKind;
    auto floatType = [&](StringRef name, StringRef option,
                         bool allowNone) -> std::optional<Type> {
      if (name == "f32")
        return Float32Type::get(context);
      if (name == "bf16")
        return BFloat16Type::get(context);
      if (allowNone && name == "none")
        return Type();
      module.emitError() << option << " '" << name << "' is not a type it "
                         << "takes (valid: f32, bf16"
                         << (allowNone ? ", none" : "") << ")";
      return std::nullopt;
    };
    std::optional<Type> master = floatType(masterType, "master-type", true);
    std::optional<Type> state = floatType(stateType, "state-type", false);
    if (!master || !state)
      return std::nullopt;
    if (microbatches < 1) {
      module.emitError() << "microbatches must be at least 1, got "
                         << int64_t(microbatches);
      return std::nullopt;
    }
    settings.master = *master;
    settings.state = *state;
    settings.weight = settings.grad = BFloat16Type::get(context);
    return settings;
  }

  LogicalResult deriveFunction(func::FuncOp func, const Settings &settings) {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (ret.getNumOperands() != 1)
      return func.emitError()
             << "returns " << ret.getNumOperands()
             << " values; a training step needs the model's one output";
    for (Operation &op : body)
      if (isa<LossOp, LayerGradOp, GradOp, OptimizerUpdateOp>(op))
        return op.emitError() << "the function already has a training step";
    // A planned function's #loom.pipeline says how many microbatches run
    // (loom-split-tokens' microbatches=): the step accumulates theirs. (The
    // option itself is left as given: a pass instance runs on many
    // modules.)
    int64_t count = microbatches;
    if (PipelineAttr pipeline = getPipeline(func);
        pipeline && pipeline.getMicrobatches() > 1) {
      if (count != 1 && count != pipeline.getMicrobatches())
        return func.emitError()
               << "microbatches=" << count
               << " disagrees with the plan's #loom.pipeline, which runs "
               << pipeline.getMicrobatches()
               << " microbatches; give the same number or leave it out";
      count = pipeline.getMicrobatches();
    }
    if (int64_t batch = getPipelineBatch(func); batch % count != 0)
      return func.emitError()
             << count << " microbatches do not divide the "
             << "batch of " << batch << " (valid: " << validMicrobatches(batch)
             << ")";

    OpBuilder builder(ret);
    Value output = ret.getOperand(0);
    auto outputType = cast<RankedTensorType>(output.getType());
    // A language model's [B, S, vocab] logits, or a DiT's latent.
    LossKind kind = outputType.getRank() == 3 ? LossKind::cross_entropy
                                              : LossKind::mse;
    auto lossType = RankedTensorType::get({}, builder.getF32Type());
    auto loss = LossOp::create(builder, ret.getLoc(), lossType, kind, output);

    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      if (&op != loss.getOperation())
        forward.push_back(&op);

    Cotangents cotangents(builder);
    SmallVector<Value> seed;
    SmallVector<bool> wanted{true};
    if (failed(cast<GradientOpInterface>(loss.getOperation())
                   .buildGradient(builder, ValueRange(), wanted, seed)))
      return failure();
    cotangents.add(output, seed[0]);

    for (Operation *op : llvm::reverse(forward)) {
      if (auto layer = dyn_cast<LayerOp>(op)) {
        if (failed(differentiateLayer(layer, builder, cotangents)))
          return failure();
        continue;
      }
      // The function's arguments are data (token ids, latents, timesteps):
      // nothing is differentiated with respect to them.
      if (failed(differentiate(op, builder, cotangents, [](Value v) {
            return !isa<BlockArgument>(v);
          })))
        return failure();
    }
    markAccumulation(func, count);
    addUpdates(func, builder, settings);
    return success();
  }

  /// Builds `op`'s gradient from the cotangents of its results (nothing when
  /// none has one: its results reach no loss) for the operands `wants`.
  LogicalResult differentiate(Operation *op, OpBuilder &builder,
                              Cotangents &cotangents,
                              llvm::function_ref<bool(Value)> wants) {
    SmallVector<Value> results;
    for (Value result : op->getResults())
      results.push_back(cotangents.get(result));
    // An op whose results reach no loss has no gradient; one without
    // results (a weight gather) is asked all the same.
    if (!results.empty() && llvm::all_of(results, [](Value v) { return !v; }))
      return success();
    auto gradient = dyn_cast<GradientOpInterface>(op);
    if (!gradient)
      return op->emitOpError() << "cannot be differentiated: it states no "
                                  "gradient (GradientOpInterface)";
    SmallVector<bool> wanted;
    for (Value operand : op->getOperands())
      wanted.push_back(wants(operand));
    SmallVector<Value> operandCotangents;
    if (failed(gradient.buildGradient(builder, results, wanted,
                                      operandCotangents)))
      return failure();
    for (auto [operand, cotangent] :
         llvm::zip(op->getOperands(), operandCotangents))
      cotangents.add(operand, cotangent);
    return success();
  }

  /// Builds `layer`'s loom.layer_grad: its inputs and the cotangents of its
  /// results in, the cotangents of its inputs out.
  LogicalResult differentiateLayer(LayerOp layer, OpBuilder &builder,
                                   Cotangents &cotangents) {
    SmallVector<Value> resultCotangents;
    for (Value result : layer.getResults())
      resultCotangents.push_back(cotangents.get(result));
    if (llvm::all_of(resultCotangents, [](Value v) { return !v; }))
      return success();
    // A result that reaches no loss (a last block's text stream) has none.
    SmallVector<int64_t> reaching;
    SmallVector<Value> given;
    for (auto [i, cotangent] : llvm::enumerate(resultCotangents))
      if (cotangent) {
        reaching.push_back(i);
        given.push_back(cotangent);
      }
    for (auto [i, input] : llvm::enumerate(layer.getInputs()))
      if (!isDifferentiable(input.getType()))
        return layer.emitOpError() << "input #" << i << " of type "
                                   << input.getType()
                                   << " cannot carry a cotangent";

    SmallVector<Value> inputs(layer.getInputs());
    llvm::append_range(inputs, given);
    auto grad = LayerGradOp::create(
        builder, layer.getLoc(), layer.getInputs().getTypes(),
        layer.getIndexAttr(), inputs, layer.getKindAttr(),
        layer.getStageAttr(),
        given.size() == resultCotangents.size()
            ? DenseI64ArrayAttr()
            : builder.getDenseI64ArrayAttr(reaching));
    Block &forwardBody = layer.getBody().front();
    Block *block = new Block();
    grad.getBody().push_back(block);
    for (Value input : inputs)
      block->addArgument(input.getType(), input.getLoc());

    OpBuilder inner = OpBuilder::atBlockEnd(block);
    IRMapping mapping;
    for (auto [arg, copy] :
         llvm::zip(forwardBody.getArguments(), block->getArguments()))
      mapping.map(arg, copy);
    SmallVector<Operation *> copies;
    for (Operation &op : forwardBody.without_terminator()) {
      Operation *copy = inner.clone(op, mapping);
      copy->setAttr(isAlwaysRecomputed(&op) ? kRecomputeAttrName
                                            : kKeptAttrName,
                    inner.getUnitAttr());
      copies.push_back(copy);
    }

    Cotangents local(inner);
    auto yield = cast<YieldOp>(forwardBody.getTerminator());
    unsigned inputCount = layer.getInputs().size();
    for (auto [index, arg] : llvm::zip(
             reaching, block->getArguments().drop_front(inputCount)))
      local.add(mapping.lookup(yield.getValues()[index]), arg);
    for (Operation *op : llvm::reverse(copies))
      if (failed(differentiate(op, inner, local, [](Value) { return true; })))
        return failure();

    SmallVector<Value> inputCotangents;
    for (auto [i, arg] :
         llvm::enumerate(block->getArguments().take_front(inputCount))) {
      Value cotangent = local.get(arg);
      if (!cotangent)
        return layer.emitOpError()
               << "input #" << i << " does not reach the layer's results";
      inputCotangents.push_back(cotangent);
    }
    YieldOp::create(inner, layer.getLoc(), inputCotangents);
    for (auto [input, cotangent] :
         llvm::zip(layer.getInputs(), grad.getResults()))
      cotangents.add(input, cotangent);
    return success();
  }

  /// With several microbatches, every weight part adds to the gradients of
  /// the ones before.
  void markAccumulation(func::FuncOp func, int64_t count) {
    if (count == 1)
      return;
    func.walk([](GradOp grad) {
      if (grad.getPart() == GradientPart::Weight)
        grad.setAccumulate(true);
    });
  }

  /// One update per layer's parameters, and one for those outside the
  /// layers, after the backward pass.
  void addUpdates(func::FuncOp func, OpBuilder &builder,
                  const Settings &settings) {
    auto add = [&](std::optional<int64_t> layer, Block &ops) {
      SmallVector<WeightShape> shapes;
      int64_t parameters = 0;
      for (Operation &op : ops) {
        if (isa<LayerOp, LayerGradOp, GradOp>(op))
          continue;
        auto cost = dyn_cast<CostOpInterface>(op);
        if (!cost || cost.getParameterCount() == 0)
          continue;
        parameters += cost.getParameterCount();
        llvm::append_range(shapes, weightShapes(&op));
      }
      if (parameters == 0)
        return;
      OptimizerRule rule = getOptimizerRule(settings.optimizer);
      OptimizerUpdateOp::create(
          builder, func.getLoc(),
          layer ? builder.getI64IntegerAttr(*layer) : IntegerAttr(),
          OptimizerAttr::get(builder.getContext(), settings.optimizer),
          builder.getI64IntegerAttr(parameters),
          builder.getI64IntegerAttr(
              getOptimizerStateElements(settings.optimizer, shapes)),
          TypeAttr::get(settings.state),
          settings.master ? TypeAttr::get(settings.master) : TypeAttr(),
          TypeAttr::get(settings.weight), TypeAttr::get(settings.grad),
          builder.getI64IntegerAttr(rule.vectorOpsPerParameter),
          IntegerAttr());
    };
    Block &body = func.getBody().front();
    SmallVector<LayerOp> layers(body.getOps<LayerOp>());
    for (LayerOp layer : layers)
      add(layer.getIndex(), layer.getBody().front());
    add(std::nullopt, body);
  }
};

} // namespace
