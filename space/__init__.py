"""The Space's parts beside ``app.py``, its entry point: limits, input checks, rendering, handlers.

They import the package (``google_bleu``) and gradio; the package never imports them, and the
wheel leaves them out.
"""
