"""The Guizhou 捉鸡 family: its settings, its patterns and its settlement."""
