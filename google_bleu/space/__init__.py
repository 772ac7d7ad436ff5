"""The Space's parts (``app.py`` is its entry point): limits, input checks, rendering, handlers.

Only this room and ``app.py`` import gradio. Scoring is the core's (:class:`google_bleu.GLEU`),
lines follow the shared policy (:mod:`google_bleu.scale.lines`), and the highlighting is
:func:`google_bleu.analysis.explain`.
"""
