#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script: builds every cargo-fuzz target of fuzz/ with the
# sanitizer the runner asks for ($SANITIZER, handled by cargo fuzz through the base image's
# RUSTFLAGS) and puts into $OUT, for each target: the binary, its seed corpus (a zip of
# fuzz/corpus/TARGET/) and, for the parser, the language dictionary. The model-running targets
# (ops, equivalence) read the models at run time: they are copied to $OUT/rmapcheck-models,
# which the targets find beside their executable (fuzz/fuzz_targets/common.rs).

cd "$SRC/rmapcheck"
targets="ops equivalence parser tree"

# --release with debug assertions on (-a), as OSS-Fuzz builds Rust targets
cargo fuzz build -O --debug-assertions

build_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for t in $targets; do
  cp "$build_dir/$t" "$OUT/$t"
  if [ -d "fuzz/corpus/$t" ]; then
    (cd "fuzz/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
done

cp fuzz/model.dict "$OUT/parser.dict"
printf '[libfuzzer]\ndict = parser.dict\n' > "$OUT/parser.options"

rm -rf "$OUT/rmapcheck-models"
cp -r models "$OUT/rmapcheck-models"
