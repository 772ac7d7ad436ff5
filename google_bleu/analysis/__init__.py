"""What a score is made of: the matched n-grams of one segment (:func:`explain`)."""

from .explain import Explanation, explain

__all__ = ["Explanation", "explain"]
