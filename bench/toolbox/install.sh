#!/bin/sh
# Installs MCP Toolbox for Databases 1.12.0, pinned by package-lock.json,
# into bench/toolbox/node_modules (git-ignored), for `go run ./bench/toolbox`.
# Needs Node.js and npm, and the npm registry.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
npm ci --prefix "$dir" --no-audit --no-fund --ignore-scripts
bin=$(find "$dir/node_modules/@toolbox-sdk/server-linux-x64" -type f -name toolbox | head -n 1)
if [ -z "$bin" ]; then
	echo "install.sh: no toolbox binary in the package" >&2
	exit 1
fi
chmod +x "$bin"
"$bin" --version
echo "$bin"
