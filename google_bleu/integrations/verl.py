"""veRL's reward: :func:`compute_score`, loaded by ``reward.custom_reward_function.path`` /
``.name`` from ``google_bleu/verl_reward.py``; :data:`compute_score_gathered` is its async
form, which scores concurrent per-sample calls in one batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..scorer import GLEU, SETTINGS, scorer_from_options
from ..stats import GleuStats
from ..validation import check_list, check_references, check_text, check_type
from .gather import GleuGatherer

# -- veRL -----------------------------------------------------------------------------------


#: Keywords veRL 0.9's reward managers add to each call when a reward model is enabled
#: (``NaiveRewardManager.run_single`` and the others pass them whenever
#: ``reward_router_address`` is set); a GLEU reward does not use them.
VERL_KEYWORDS = ("reward_router_address", "reward_model_tokenizer")


def _check_keywords(options: dict[str, Any]) -> None:
    unknown = sorted(key for key in options if key not in SETTINGS and key not in VERL_KEYWORDS)
    if unknown:
        raise TypeError(
            f"compute_score got unexpected keyword arguments {unknown}: reward_kwargs may set "
            f"{', '.join(SETTINGS)}; veRL itself passes {' and '.join(VERL_KEYWORDS)}"
        )


def _verl_scorer(options: dict[str, Any]) -> GLEU:
    """The scorer of one call: the settings among ``options`` (veRL's ``reward_kwargs``),
    after refusing keywords that are neither settings nor veRL's own."""
    _check_keywords(options)
    return scorer_from_options(None, options)


def _score_dict(row: tuple[float, float, float]) -> dict[str, float]:
    # veRL logs every key but "score" beside the reward.
    return dict(zip(("score", "precision", "recall"), row))


def _score_dicts(stats: GleuStats) -> list[dict[str, float]]:
    return list(map(_score_dict, stats.segment_scores()))


def compute_score(
    data_source: Any = None,
    solution_str: str | None = None,
    ground_truth: str | Sequence[str] | None = None,
    extra_info: Any = None,
    *,
    data_sources: Sequence[Any] | None = None,
    solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[str | Sequence[str]] | None = None,
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> dict[str, float] | list[dict[str, float]]:
    """veRL's custom reward: GLEU of one response, or of a batch (keyword form).

    veRL's per-sample reward managers call ``compute_score(data_source=, solution_str=,
    ground_truth=, extra_info=)``; its ``batch`` reward manager calls
    ``compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=)``. This
    one function answers both (:func:`compute_score_batch` is the batch form alone).

    Args:
        data_source: The sample's data source (not used for scoring).
        solution_str: The decoded response.
        ground_truth: The reference: a string or a non-empty list of strings.
        extra_info: The sample's extra info (not used).
        data_sources: Batch form: one data source per response (length is checked).
        solution_strs: Batch form: the decoded responses.
        ground_truths: Batch form: per response a string or a list of strings.
        extra_infos: Batch form: per response extra info (not used; length is checked).
        **kwargs: Settings, e.g. from ``custom_reward_function.reward_kwargs``:
            ``tokenizer`` (name, default ``"13a"``), ``lowercase``, ``min_len``,
            ``max_len``. The keywords veRL adds when a reward model is enabled
            (``reward_router_address``, ``reward_model_tokenizer``) are accepted and not
            used; any other keyword is refused.

    Returns:
        ``{"score", "precision", "recall"}`` (sentence GLEU and the n-gram precision and
        recall against the chosen reference; veRL logs the extra keys), or a list of
        them for the batch form.

    Raises:
        TypeError: A response or reference of the wrong type, naming the argument, or an
            unknown keyword (a misspelt ``reward_kwargs`` key), naming it.
        ValueError: Batch lists of different lengths, or single and batch arguments mixed.

    Example:
        >>> compute_score("wmt", "the cat sat on the mat", "the cat ate the mat")
        {'score': 0.3333333333333333, 'precision': 0.3333333333333333, 'recall': 0.42857142857142855}
        >>> [s["score"] for s in compute_score(data_sources=["a", "b"], solution_strs=["a dog", "x"],
        ...                                    ground_truths=[["one dog", "a dog"], "y"], extra_infos=[{}, {}])]
        [1.0, 0.0]
    """
    batch = {"data_sources": data_sources, "solution_strs": solution_strs, "ground_truths": ground_truths}
    if solution_strs is not None or ground_truths is not None or data_sources is not None or extra_infos is not None:
        single = {"data_source": data_source, "solution_str": solution_str, "ground_truth": ground_truth}
        mixed = sorted(key for key, value in single.items() if value is not None)
        if mixed or extra_info is not None:
            raise ValueError(
                f"compute_score takes one sample or a batch, not both: got batch arguments and {mixed or ['extra_info']}"
            )
        return compute_score_batch(extra_infos=extra_infos, **batch, **kwargs)
    response = check_text(solution_str, "solution_str (the decoded response)")
    references = check_references(ground_truth, "ground_truth")
    return _score_dicts(_verl_scorer(kwargs).stats([response], [references]))[0]


def compute_score_batch(
    data_sources: Sequence[Any] | None,
    solution_strs: Sequence[str],
    ground_truths: Sequence[str | Sequence[str]],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """veRL's batch reward: GLEU of each response (the ``batch`` reward manager's form).

    Arguments and settings as :func:`compute_score`; ``data_sources`` and
    ``extra_infos`` may be ``None`` but, when given, need one entry per response.

    Example:
        >>> compute_score_batch(None, ["a b c"], [["a b c"]])
        [{'score': 1.0, 'precision': 1.0, 'recall': 1.0}]
    """
    responses = check_list(solution_strs, "solution_strs")
    truths = check_list(ground_truths, "ground_truths")
    counts = {"solution_strs": len(responses), "ground_truths": len(truths)}
    for name, value in (("data_sources", data_sources), ("extra_infos", extra_infos)):
        if value is not None:
            counts[name] = len(check_list(value, name))
    if len(set(counts.values())) > 1:
        raise ValueError(
            "batch lists need one entry per response, got " + ", ".join(f"{n} {k}" for k, n in counts.items())
        )
    responses = [check_text(response, f"solution_strs[{i}]") for i, response in enumerate(responses)]
    references = [check_references(truth, f"ground_truths[{i}]") for i, truth in enumerate(truths)]
    return _score_dicts(_verl_scorer(kwargs).stats(responses, references))


#: The :class:`~google_bleu.integrations.gather.GleuGatherer` behind :func:`compute_score_gathered`.
gathered = GleuGatherer()


async def compute_score_gathered(
    data_source: Any = None,
    solution_str: str | None = None,
    ground_truth: str | Sequence[str] | None = None,
    extra_info: Any = None,
    **kwargs: Any,
) -> dict[str, float]:
    """veRL's async ``compute_score``: ``{"score", "precision", "recall"}`` of one response.

    veRL awaits one call per sample; the calls arriving within 1 ms of the first (up to 64)
    are scored in one batch by :data:`gathered`. Returns what :func:`compute_score` returns
    for one sample, and takes the same ``reward_kwargs`` (calls with other settings are
    batched apart). :func:`compute_score_with` makes the same reward on a gatherer of your own.

    Raises:
        TypeError: A response or reference of the wrong type, naming the argument, or an
            unknown keyword, naming it.
        ValueError: The batch reward manager's keywords (name ``compute_score`` there), or a
            bad setting.

    Example:
        >>> import asyncio
        >>> asyncio.run(compute_score_gathered("wmt", "the cat sat on the mat", "the cat ate the mat"))["score"]
        0.3333333333333333
    """
    return await _gathered_score(gathered, solution_str, ground_truth, kwargs)


def compute_score_with(gatherer: GleuGatherer) -> Any:
    """:func:`compute_score_gathered` on ``gatherer`` (its scorer, batch size and window): an
    async function to name in a reward file of your own (``compute_score =
    compute_score_with(GleuGatherer(GLEU(lowercase=True), max_wait=0.005))``)."""
    check_type(gatherer, GleuGatherer, "gatherer", "a GleuGatherer")

    async def compute_score(
        data_source: Any = None,
        solution_str: str | None = None,
        ground_truth: str | Sequence[str] | None = None,
        extra_info: Any = None,
        **kwargs: Any,
    ) -> dict[str, float]:
        return await _gathered_score(gatherer, solution_str, ground_truth, kwargs)

    return compute_score


async def _gathered_score(gatherer: GleuGatherer, solution_str: Any, ground_truth: Any, kwargs: dict) -> dict[str, float]:
    batch = sorted(key for key in ("data_sources", "solution_strs", "ground_truths", "extra_infos") if key in kwargs)
    if batch:
        raise ValueError(
            f"compute_score_gathered scores one sample per call; got the batch manager's {batch}: "
            "name compute_score for veRL's batch reward manager"
        )
    response = check_text(solution_str, "solution_str (the decoded response)")
    references = check_references(ground_truth, "ground_truth")
    _check_keywords(kwargs)
    scorer = scorer_from_options(None, kwargs) if any(key in kwargs for key in SETTINGS) else None
    return _score_dict(await gatherer.segment(response, references, scorer=scorer))
