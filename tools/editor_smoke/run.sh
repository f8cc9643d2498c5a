#!/bin/sh
# Drive real editors headless against `idlc lsp` on a two-file workspace (see README.md):
#   tools/editor_smoke/run.sh            # both: Emacs (eglot) and Neovim
#   tools/editor_smoke/run.sh emacs      # or: nvim
# Uses the repository's .venv/bin/idlc when there is one, else `idlc` on PATH.
# Each editor works on a fresh copy of workspace/ in a temporary folder; the status is 1 if
# a check failed in any editor.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ -x "$repo/.venv/bin/idlc" ]; then PATH="$repo/.venv/bin:$PATH"; export PATH; fi
if ! command -v idlc >/dev/null; then
  echo "idlc is not on PATH: make the venv (pip install -e '.[lsp]') first" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for editor in ${*:-emacs nvim}; do
  ws="$tmp/$editor/ws"
  mkdir -p "$ws"
  cp "$here"/workspace/* "$ws"/
  echo "===== $editor"
  case "$editor" in
    emacs) (cd "$here" && timeout 300 emacs --batch -l eglot_smoke.el "$ws" 2>"$tmp/$editor/stderr") ;;
    nvim) (cd "$here" && timeout 300 nvim --headless -u nvim-init.lua -c "luafile nvim_smoke.lua" "$ws/b.idl" \
             2>"$tmp/$editor/stderr") ;;
    *) echo "unknown editor: $editor (emacs or nvim)" >&2; false ;;
  esac
  code=$?
  if [ "$code" != 0 ]; then
    echo "$editor exited with status $code; its stderr:"
    cat "$tmp/$editor/stderr" 2>/dev/null
    status=1
  fi
done
exit $status
