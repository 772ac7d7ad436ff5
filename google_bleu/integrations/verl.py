"""veRL's reward, :func:`compute_score` (from ``google_bleu/verl_reward.py``), and its async form
:func:`compute_score_gathered` (docs/rl-rewards.md, "veRL")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..settings import GLEU, SETTINGS, scorer_from_options
from ..validation import check_list, check_references, check_text, check_type
from .gather import GleuGatherer

#: Keywords veRL 0.9's reward managers add when a reward model is enabled (unused here).
VERL_KEYWORDS = ("reward_router_address", "reward_model_tokenizer")
_BATCH = ("data_sources", "solution_strs", "ground_truths", "extra_infos")


def _verl_scorer(options: dict[str, Any]) -> GLEU:
    """The scorer of the settings in ``options`` (veRL's ``reward_kwargs``); other keywords but veRL's are refused."""
    unknown = sorted(key for key in options if key not in SETTINGS and key not in VERL_KEYWORDS)
    if unknown:
        raise TypeError(f"compute_score got unexpected keyword arguments {unknown}: reward_kwargs may set {', '.join(SETTINGS)}; veRL itself passes {' and '.join(VERL_KEYWORDS)}")
    return scorer_from_options(None, options)


def _score_dict(row: tuple[float, float, float]) -> dict[str, float]:
    # veRL logs every key but "score" beside the reward.
    return dict(zip(("score", "precision", "recall"), row))


def compute_score(
    data_source: Any = None, solution_str: str | None = None, ground_truth: str | Sequence[str] | None = None,
    extra_info: Any = None, *, data_sources: Sequence[Any] | None = None, solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[str | Sequence[str]] | None = None, extra_infos: Sequence[Any] | None = None, **kwargs: Any,
) -> dict[str, float] | list[dict[str, float]]:
    """veRL's custom reward: ``{"score", "precision", "recall"}`` of one response, or a list of them for
    a batch (the plural keywords, veRL's ``batch`` manager). ``data_source`` and ``extra_info`` are not
    used (in a batch their lengths are checked); ``**kwargs`` are the settings (``reward_kwargs``).

    Example:
        >>> compute_score("wmt", "the cat sat on the mat", "the cat ate the mat")
        {'score': 0.3333333333333333, 'precision': 0.3333333333333333, 'recall': 0.42857142857142855}
        >>> [s["score"] for s in compute_score(data_sources=["a", "b"], solution_strs=["a dog", "x"],
        ...                                    ground_truths=[["one dog", "a dog"], "y"], extra_infos=[{}, {}])]
        [1.0, 0.0]
    """
    if solution_strs is not None or ground_truths is not None or data_sources is not None or extra_infos is not None:
        single = {"data_source": data_source, "solution_str": solution_str, "ground_truth": ground_truth}
        mixed = sorted(key for key, value in single.items() if value is not None)
        if mixed or extra_info is not None:
            raise ValueError(f"compute_score takes one sample or a batch, not both: got batch arguments and {mixed or ['extra_info']}")
        return compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs)
    response = check_text(solution_str, "solution_str (the decoded response)")
    references = check_references(ground_truth, "ground_truth")
    return _score_dict(_verl_scorer(kwargs).checked_stats([response], [references]).segment_scores()[0])


def compute_score_batch(
    data_sources: Sequence[Any] | None, solution_strs: Sequence[str], ground_truths: Sequence[str | Sequence[str]],
    extra_infos: Sequence[Any] | None = None, **kwargs: Any,
) -> list[dict[str, float]]:
    """:func:`compute_score`'s batch form alone (``data_sources`` and ``extra_infos`` may be ``None``).

    Example:
        >>> compute_score_batch(None, ["a b c"], [["a b c"]])
        [{'score': 1.0, 'precision': 1.0, 'recall': 1.0}]
    """
    scorer = _verl_scorer(kwargs)
    responses = check_list(solution_strs, "solution_strs")
    counts = {"solution_strs": len(responses), "ground_truths": len(check_list(ground_truths, "ground_truths"))}
    for name, value in (("data_sources", data_sources), ("extra_infos", extra_infos)):
        if value is not None:
            counts[name] = len(check_list(value, name))
    if len(set(counts.values())) > 1:
        raise ValueError("batch lists need one entry per response, got " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    rows = scorer.stats(responses, ground_truths, ("solution_strs", "ground_truths")).segment_scores()
    return [_score_dict(row) for row in rows]


def compute_score_with(gatherer: GleuGatherer) -> Any:
    """:func:`compute_score` for one sample, as an async function whose concurrent calls ``gatherer``
    scores in batches (calls with other ``reward_kwargs`` apart); the batch manager's keywords are refused."""
    check_type(gatherer, GleuGatherer, "gatherer", "a GleuGatherer")

    async def compute_score(
        data_source: Any = None, solution_str: str | None = None, ground_truth: str | Sequence[str] | None = None,
        extra_info: Any = None, **kwargs: Any,
    ) -> dict[str, float]:
        return await _gathered_score(gatherer, solution_str, ground_truth, kwargs)

    return compute_score


#: The :class:`~google_bleu.integrations.gather.GleuGatherer` behind :func:`compute_score_gathered`.
gathered = GleuGatherer()


async def compute_score_gathered(
    data_source: Any = None, solution_str: str | None = None, ground_truth: Any = None, extra_info: Any = None, **kwargs: Any
) -> dict[str, float]:
    """veRL's async ``compute_score``: :func:`compute_score_with` on :data:`gathered`.

    Example:
        >>> import asyncio
        >>> asyncio.run(compute_score_gathered("wmt", "the cat sat on the mat", "the cat ate the mat"))["score"]
        0.3333333333333333
    """
    return await _gathered_score(gathered, solution_str, ground_truth, kwargs)


async def _gathered_score(gatherer: GleuGatherer, solution_str: Any, ground_truth: Any, kwargs: dict) -> dict[str, float]:
    batch = sorted(key for key in _BATCH if key in kwargs)
    if batch:
        raise ValueError(f"compute_score_gathered scores one sample per call; got the batch manager's {batch}: name compute_score for veRL's batch reward manager")
    scorer = _verl_scorer(kwargs)  # refuses keywords that are neither settings nor veRL's
    scorer = scorer if any(key in kwargs for key in SETTINGS) else None  # else the gatherer's own
    names = ("solution_str (the decoded response)", "ground_truth")
    return _score_dict(await gatherer.segment(solution_str, ground_truth, scorer=scorer, names=names))
