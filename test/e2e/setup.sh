#!/usr/bin/env bash
# Installs what the real-editor tests need, idempotently, into $E2E_HOME (default: <repo>/.e2e, git-ignored):
#   apt: chromium, neovim, fonts and the build tools code-server's native modules need;
#   node@24 from the npm registry (code-server 4.139 = VS Code 1.139 needs it; it carries its own headers);
#   code-server@4.139.1 (its bundled upstream VS Code server), playwright-core and mocha.
# Adapted from the team's vscode-e2e recipe (setup.sh, env.sh). Only apt writes outside $E2E_HOME.
set -euo pipefail
# Run from an npm script, npm's lifecycle variables (npm_config_user_agent names Node 20) would leak into
# the Node 24 installs below; env.sh sets the npm variables this script needs.
while read -r v; do unset "$v"; done < <(compgen -e | grep -i '^npm_' || true)
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"

APT_PKGS=(chromium neovim fonts-liberation fonts-dejavu-core build-essential python3 pkg-config
          libkrb5-dev libsecret-1-dev libxkbfile-dev)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "e2e setup: apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

ensure_pkg_json() { mkdir -p "$1"; [ -f "$1/package.json" ] || echo '{ "private": true }' > "$1/package.json"; }

if ! { [ -x "$E2E_NODE" ] && "$E2E_NODE" -v | grep -q '^v24\.'; }; then
  echo "e2e setup: npm install node@24"
  ensure_pkg_json "$E2E_HOME/node"
  (cd "$E2E_HOME/node" && npm install --no-save --loglevel=error node@24)
fi

marker="$E2E_HOME/code-server/.installed-$E2E_CS_VERSION"
if ! { [ -f "$marker" ] && [ -f "$E2E_SERVER_MAIN" ]; }; then
  echo "e2e setup: npm install code-server@$E2E_CS_VERSION (a few minutes; log: $E2E_HOME/code-server/install.log)"
  ensure_pkg_json "$E2E_HOME/code-server"
  npm_config_nodedir="$(e2e_nodedir)" || { echo "e2e setup: Node 24 headers not found" >&2; exit 1; }
  export npm_config_nodedir
  if ! (cd "$E2E_HOME/code-server" && npm install --no-save --foreground-scripts "code-server@$E2E_CS_VERSION") \
       > "$E2E_HOME/code-server/install.log" 2>&1; then
    tail -40 "$E2E_HOME/code-server/install.log"; echo "e2e setup: code-server install failed" >&2; exit 1
  fi
  touch "$marker"
fi

if [ ! -f "$E2E_TOOLS/node_modules/playwright-core/package.json" ] || [ ! -f "$E2E_TOOLS/node_modules/mocha/package.json" ]; then
  echo "e2e setup: npm install playwright-core mocha"
  ensure_pkg_json "$E2E_TOOLS"
  (cd "$E2E_TOOLS" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --loglevel=error playwright-core@1.65.1 mocha@10.8.2)
fi
echo "e2e setup: ready (node $("$E2E_NODE" -v), code-server $E2E_CS_VERSION, $(chromium --version 2>/dev/null | head -1))"
