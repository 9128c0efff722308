#!/bin/sh
# A minimal fedsim external objective worker in POSIX shell (docs/external-objectives.md):
# one request line in, one answer line out, for as long as fedsim keeps stdin open.
#   in:  {"id":17,"agent":3,"iteration":5,"x":[0.1,0.7]}
#   out: {"id": 17, "y": -0.2, "f": -0.2}
# f(x) = -sum_i (x_i - 0.3)^2, maximised at (0.3, ..., 0.3), observed without noise. A real
# worker would run its training here; whatever it prints must go to stderr (>&2), since stdout
# carries answers only.
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/.*"id":[[:space:]]*\([0-9][0-9]*\).*/\1/p')
  x=$(printf '%s\n' "$line" | sed -n 's/.*"x":[[:space:]]*\[\([^]]*\)\].*/\1/p')
  printf '%s\n' "$x" | awk -F, -v id="$id" '{
    s = 0
    for (i = 1; i <= NF; i++) { d = $i - 0.3; s += d * d }
    printf "{\"id\": %s, \"y\": %.17g, \"f\": %.17g}\n", id, -s, -s
  }'
done
