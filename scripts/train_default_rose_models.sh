#!/usr/bin/env bash
# Re-trains the ROSE models shipped in src/mtscore/data/rose/ (run from the repository root,
# with ../shared/data beside it). Each model JSON records its own command under training.command.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=src
D=src/mtscore/data/rose
python -m mtscore rose train --data ../shared/data/wmt23 --lp he-en zh-en --human mqm --objective regression --kernel linear --features core --seed 0 -o $D/rose-reg.json
python -m mtscore rose train --data ../shared/data/wmt23 --lp he-en zh-en --human mqm --objective ranking --kernel linear --features core --seed 0 -o $D/rose-rank.json
python -m mtscore rose train --data ../shared/data/wmt23 --lp he-en zh-en --human mqm --objective regression --kernel linear --features pos --seed 0 -o $D/rose-regpos.json
python -m mtscore rose train --data ../shared/data/wmt23 --lp he-en zh-en --human mqm --objective ranking --kernel linear --features pos --seed 0 -o $D/rose-rankpos.json
