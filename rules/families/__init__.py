"""Rule families: each subpackage is one family of games (its settings, patterns, settlement)."""
