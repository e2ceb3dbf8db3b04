# fit --json: the figures of docs/json-schema.md, with the expandable model and a knob.
"$VT_GEN" train-12 t.vtrace && "$VRAMTRACE" fit t.vtrace --allocator expandable --memory 500MiB --json \
  --alloc-conf garbage_collection_threshold:0.8
