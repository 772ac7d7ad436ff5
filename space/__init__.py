"""The Space's parts beside ``app.py``, its entry point: limits, input checks, rendering, handlers.

Only these and ``app.py`` import gradio; the package never imports them, and its wheel leaves
them out. Scoring is the core's (:class:`google_bleu.GLEU`), lines follow the shared policy
(:mod:`google_bleu.scale.lines`), and the highlighting is :func:`google_bleu.analysis.explain`.
"""
