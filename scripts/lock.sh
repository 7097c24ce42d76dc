#!/usr/bin/env bash
# Refresh requirements.lock: every package any environment installs (the members' dependencies, the
# test, lint, type, bench, ci and build groups), resolved anew to the newest versions the members'
# own ranges allow, for every Python the members support. tox, .ci/run and scripts/quickstart.sh
# install with it as their constraints, so a clean clone tests exactly what was tested.
#   bash scripts/lock.sh            # refresh; commit requirements.lock after the tests pass with it
#   bash scripts/lock.sh --keep     # after a change of the members' dependencies: keep every pin
#   bash scripts/lock.sh --upgrade-package msgspec   # move one package, keep the rest
set -euo pipefail
cd "$(dirname "$0")/.."
members=$(python3 -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["tool"]["kconnect"]["workspace"]["members"]))')
names=()
editables=()
for member in $members; do
    names+=(--no-emit-package "$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["name"])' "$member/pyproject.toml")")
    editables+=("-e ./$member")
done
groups=()
for group in test lint type bench ci build; do
    groups+=(--group "pyproject.toml:$group")
done
uv=(uv)
command -v uv >/dev/null || uv=(python3 -m uv)
# --upgrade unless a narrower flag was given: a refresh means the newest the ranges allow.
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
    args=(--upgrade)
elif [ "${args[0]}" = --keep ]; then
    args=("${args[@]:1}")
fi
# The members come from this checkout (each plugin depends on `kconnect`, which is not on PyPI).
exec "${uv[@]}" pip compile --quiet --universal --python-version 3.10 --no-header --annotation-style line \
    "${names[@]}" "${groups[@]}" "${args[@]}" -o requirements.lock <(printf '%s\n' "${editables[@]}")
