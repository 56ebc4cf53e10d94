# Sourced by the e2e scripts: the $E2E_HOME layout and a contained HOME/XDG/TMPDIR, so nothing is written elsewhere.
E2E_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
export E2E_HOME="${E2E_HOME:-$E2E_REPO/.e2e}"
mkdir -p "$E2E_HOME"; E2E_HOME="$(cd "$E2E_HOME" && pwd -P)"
export E2E_CS_VERSION="${E2E_CS_VERSION:-4.139.1}"
export E2E_NODE_DIR="$E2E_HOME/node/node_modules/node"
export E2E_NODE="$E2E_NODE_DIR/bin/node"
export E2E_SERVER_MAIN="$E2E_HOME/code-server/node_modules/code-server/lib/vscode/out/server-main.js"
export E2E_TOOLS="$E2E_HOME/tools"
export E2E_ORIG_HOME="${E2E_ORIG_HOME:-$HOME}"
export HOME="$E2E_HOME/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share" XDG_CACHE_HOME="$HOME/.cache" XDG_STATE_HOME="$HOME/.local/state"
# Unix socket paths are limited to 107 bytes and VS Code adds ~59 characters under TMPDIR: keep it short.
if [ -z "${E2E_TMPDIR:-}" ]; then
  if [ $(( ${#E2E_HOME} + 4 + 59 )) -le 107 ]; then E2E_TMPDIR="$E2E_HOME/tmp"; else E2E_TMPDIR="/tmp/toonlens-e2e-$(id -u)"; fi
fi
export TMPDIR="$E2E_TMPDIR" XDG_RUNTIME_DIR="$E2E_TMPDIR"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME" "$TMPDIR"
chmod 700 "$TMPDIR"
export npm_config_cache="$HOME/.npm" npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
if [ -z "${npm_config_userconfig:-}" ] && [ -f "$E2E_ORIG_HOME/.npmrc" ]; then export npm_config_userconfig="$E2E_ORIG_HOME/.npmrc"; fi
case ":$PATH:" in *":$E2E_NODE_DIR/bin:"*) ;; *) export PATH="$E2E_NODE_DIR/bin:$E2E_TOOLS/node_modules/.bin:$PATH" ;; esac
e2e_nodedir() {
  local d
  for d in "$E2E_HOME"/node/node_modules/node/node_modules/node-linux-* "$E2E_HOME"/node/node_modules/node-linux-*; do
    [ -f "$d/include/node/common.gypi" ] && { echo "$d"; return 0; }
  done
  return 1
}
