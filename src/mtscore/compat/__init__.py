"""Compatibility layers that imitate other tools' command lines (``mtscore sacrebleu``)."""
