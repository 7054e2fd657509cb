"""Exports, statements and RunConfigs: what a release hands out and says (above the schemes)."""
