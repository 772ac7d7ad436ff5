"""One module per framework, each importing its framework only when used (``from google_bleu.integrations.trl
import GleuReward``); docs/rl-rewards.md, docs/metrics-harnesses.md, docs/training.md and docs/scale.md show each."""
