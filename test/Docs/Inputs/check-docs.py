#!/usr/bin/env python3
"""Checks that Loom's documentation is current.

  check-docs.py SOURCE_ROOT [--list-passes FILE]

- docs/design.md has a table row for every parameter of #loom.parallel
  (dialects/Loom/LoomAttrs.td, Loom_ParallelAttr) and for every registered
  pass and named pass pipeline: those declared in the Passes.td files, those
  registered with PassPipelineRegistration, and, with --list-passes, every
  entry of `loom-opt --list-passes`' output.
- README.md links every page of docs/ (docs/*.md).
- Every relative link in README.md, bench/README.md and docs/ names a file
  that exists and, with a #fragment into a Markdown file, one of its
  headings (GitHub's anchors).

Prints what is missing and exits 1, or prints a summary and exits 0.
"""

import argparse
import glob
import os
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def parallel_parameters(root):
    td = read(os.path.join(root, "dialects", "Loom", "LoomAttrs.td"))
    start = td.index("def Loom_ParallelAttr")
    body = td[start:]
    # Comments may hold ");" and "$": drop them first.
    body = "\n".join(line.split("//")[0] for line in body.splitlines())
    params = body[body.index("let parameters"):]
    params = params[:params.index(");")]
    names = re.findall(r"\$(\w+)", params)
    if not names:
        sys.exit("check-docs.py: no parameters found in Loom_ParallelAttr")
    return names


def declared_passes(root):
    names = []
    for td in glob.glob(os.path.join(root, "include", "**", "*.td"), recursive=True):
        names += re.findall(r':\s*Pass<"([^"]+)"', read(td))
    for cpp in glob.glob(os.path.join(root, "lib", "**", "*.cpp"), recursive=True):
        names += re.findall(r'PassPipelineRegistration\s*<[^>]*>\s*\(\s*"([^"]+)"',
                            read(cpp))
    if not names:
        sys.exit("check-docs.py: no passes found under include/ and lib/")
    return names


def listed_passes(path):
    # `--list-passes` prints "Passes:" and "Pass Pipelines:", each entry as
    # "  --name  - summary"; a pass's options are indented further.
    return re.findall(r"^  --([A-Za-z0-9_.-]+)", read(path), re.MULTILINE)


def has_row(text, name):
    # A table row whose first cell is the name, in backticks or not, maybe
    # followed by its options in parentheses.
    pattern = r"^\|\s*`?%s`?\s*(\(|\||=)" % re.escape(name)
    return re.search(pattern, text, re.MULTILINE) is not None


def anchors(path):
    text = re.sub(r"```.*?```", "", read(path), flags=re.DOTALL)
    result = set()
    for heading in re.findall(r"^#+\s+(.*?)\s*$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        result.add(slug)
    return result


def relative_links(path):
    text = read(path)
    # Code spans and blocks hold no links.
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        yield target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--list-passes")
    args = parser.parse_args()
    root = args.root
    design = read(os.path.join(root, "docs", "design.md"))
    readme = read(os.path.join(root, "README.md"))
    problems = []

    params = parallel_parameters(root)
    for name in params:
        if not has_row(design, name):
            problems.append("docs/design.md: no row for #loom.parallel's "
                            "parameter '%s'" % name)

    passes = declared_passes(root)
    if args.list_passes:
        passes += listed_passes(args.list_passes)
    passes = sorted(set(passes))
    for name in passes:
        if not has_row(design, name):
            problems.append("docs/design.md: no row for the pass '%s'" % name)

    pages = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    for page in pages:
        rel = os.path.relpath(page, root)
        if "(%s)" % rel not in readme and "(%s#" % rel not in readme:
            problems.append("README.md: no link to %s" % rel)

    documents = [os.path.join(root, "README.md"),
                 os.path.join(root, "bench", "README.md")]
    documents += glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    for doc in documents:
        for target in relative_links(doc):
            name, _, fragment = target.partition("#")
            path = os.path.join(os.path.dirname(doc), name) if name else doc
            where = os.path.relpath(doc, root)
            if not os.path.exists(path):
                problems.append("%s: link to %s, which does not exist"
                                % (where, target))
            elif fragment and path.endswith(".md") and fragment not in anchors(path):
                problems.append("%s: link to %s, which has no such heading"
                                % (where, target))

    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("docs current: %d #loom.parallel parameters, %d passes, %d pages"
          % (len(params), len(passes), len(pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
