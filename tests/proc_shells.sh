#!/bin/sh
# Shell scripts: every process writes one report, its last image's (the plain name is handed on
# at exec; the shell images that exec'd did nothing of their own and write none), whatever the
# shell. bash has its own getenv and setenv and execs its children with its own list of exported
# variables, built before it forked; dash execs from vfork; zsh is checked when installed. The
# images are counted apart from tprof by tests/victims/libtpcount.so, preloaded beside it: one
# line per image started (with its executable) and per forked child. Each pid must have exactly
# one report, of the executable its last image ran, with and without %p in the template, and
# tprof must have said nothing (a report that had to go beside another's under a made-up name
# would say so).
. "$TS/lib.sh"
COUNT=$TB/victims/libtpcount.so
cat > "$WORK/script.sh" <<'EOF'
for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done
( /bin/true ) | cat > /dev/null
( echo sub; /bin/true ) > /dev/null
x=$(/bin/echo hi)
/bin/true & wait
sh -c 'exec /bin/true'
echo "done $x"
exec /bin/true
EOF
ran=0
for sh in bash dash zsh; do
  shell=$(command -v $sh) || { echo "$sh is not installed: not checked"; continue; }
  ran=$((ran + 1))
  native=$("$shell" "$WORK/script.sh") || fail "$sh: the script failed without tprof"
  for tmpl in r.json %p.json; do
    dir=$WORK/$sh-$(echo "$tmpl" | tr -d '%')
    mkdir "$dir"
    out=$(TPCOUNT_FILE="$dir/images" TPROF_OUTPUT=none TPROF_JSON="$dir/$tmpl" \
          LD_PRELOAD="$TPROF_SO $COUNT" "$shell" "$WORK/script.sh" 2> "$dir/err") ||
      fail "$sh: the script failed under tprof: $(cat "$dir/err")"
    [ "$out" = "$native" ] || fail "$sh: output changed: $out"
    [ -s "$dir/err" ] && fail "$sh ($tmpl): tprof said: $(cat "$dir/err")"
    python3 - "$dir" "$sh" "$tmpl" <<'EOF' || fail "$sh ($tmpl): reports and images differ"
import collections, glob, json, os, sys
d, sh, tmpl = sys.argv[1:]
images, last = collections.Counter(), {}
for line in open(os.path.join(d, "images")):
    w = line.split()
    images[w[0]] += 1
    last[w[0]] = w[2] if w[1] == "image" else None
reports, exes = collections.Counter(), {}
for f in glob.glob(os.path.join(d, "*.json")):
    p = json.load(open(f))["program"]
    reports[str(p["pid"])] += 1
    exes[str(p["pid"])] = p["exe"]
n_img, n_rep = sum(images.values()), sum(reports.values())
print(f"{sh} ({tmpl}): {n_img} process images in {len(images)} processes, {n_rep} reports")
bad = {p: (images[p], reports[p]) for p in set(images) | set(reports) if reports[p] != 1}
for p, (i, r) in sorted(bad.items()):
    print(f"  pid {p}: {i} images, {r} reports")
wrong = {p: (last[p], exes.get(p)) for p in last if last[p] and exes.get(p) != last[p]}
for p, (want, got) in sorted(wrong.items()):
    print(f"  pid {p}: report of {got}, last image {want}")
execs = n_img - len(images)  # images that replaced another, besides each process's first
sys.exit(1 if bad or wrong or n_img < 20 or execs < 3 else 0)
EOF
  done
done
[ "$ran" -gt 0 ] || { echo "no shell to check"; exit 77; }
exit 0
