#!/usr/bin/env bash
# LangChain's agent-chat-ui (the `nextjs` template of the npm package create-agent-chat-app, version 0.1.6),
# installed from the npm registry with the lockfile in clients/agent-chat-ui (reproducible `npm ci`), built with
# `next build`, and started on loopback. Point it at claimhop's server in the page's form, or with
# ?apiUrl=http://127.0.0.1:2024&assistantId=claimhop in its address.
#   bash scripts/agent-chat-ui.sh build          # once (a few minutes); kept in $CLAIMHOP_HOME/agent-chat-ui-0.1.6
#   bash scripts/agent-chat-ui.sh start [PORT]   # default 3000
set -euo pipefail
VERSION=0.1.6
HERE="$(cd "$(dirname "$0")/.." && pwd)"
HOME_DIR="${CLAIMHOP_HOME:-$HOME/.cache/claimhop}"
APP="$HOME_DIR/agent-chat-ui-$VERSION"
export NEXT_TELEMETRY_DISABLED=1

build() {
  command -v npm >/dev/null || { echo "agent-chat-ui needs Node.js 20+ and npm (Debian: apt-get install nodejs npm)" >&2; exit 1; }
  if [ -f "$APP/.next/BUILD_ID" ] && cmp -s "$HERE/clients/agent-chat-ui/package-lock.json" "$APP/package-lock.json"; then
    echo "agent-chat-ui $VERSION already built in $APP"; return
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "create-agent-chat-app@$VERSION" >/dev/null && tar xzf "create-agent-chat-app-$VERSION.tgz")
  rm -rf "$APP.tmp" && mkdir -p "$APP.tmp"
  cp -r "$work/package/templates/nextjs/." "$APP.tmp/"
  # the template's own package.json, without `turbo: latest` (not needed to build), and its pinned lockfile
  cp "$HERE/clients/agent-chat-ui/package.json" "$HERE/clients/agent-chat-ui/package-lock.json" "$APP.tmp/"
  # offline: the template loads the Inter font from Google Fonts at build time; use the system's sans-serif
  python3 - "$APP.tmp/src/app/layout.tsx" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
text = text.replace('import { Inter } from "next/font/google";\n', "")
text = re.sub(r"const inter = Inter\(\{.*?\}\);\n", "const inter = { className: \"font-sans\" };\n", text, flags=re.S)
open(path, "w", encoding="utf-8").write(text)
PY
  (cd "$APP.tmp" && npm ci --no-audit --no-fund --loglevel=error && npx --no-install next build)
  rm -rf "$APP" && mv "$APP.tmp" "$APP"
  echo "agent-chat-ui $VERSION built in $APP"
}

case "${1:-}" in
  build) build ;;
  start) build; cd "$APP" && exec npx --no-install next start -H 127.0.0.1 -p "${2:-3000}" ;;
  *) echo "usage: $0 build | start [PORT]" >&2; exit 2 ;;
esac
