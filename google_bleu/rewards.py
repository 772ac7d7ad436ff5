"""GLEU as a reward for the RL frameworks: TRL, veRL, OpenRLHF and verifiers.

GLEU was made as a sentence-level RL reward (Wu et al. 2016, GNMT). Every reward here is
a thin layer over the shared scorer :class:`google_bleu.GLEU` (text) or
:func:`google_bleu.batch_sentence_gleu` (token ids): it takes the framework's arguments
apart, checks them, and returns the framework's shape. Settings (tokenizer, lowercase,
n-gram orders) are checked once, when the reward is built. Scores equal nltk's
``sentence_gleu`` on the same tokens (``==``).

- **TRL** (``GRPOTrainer``, ``AsyncGRPOTrainer``, RLOO, ...): :class:`GleuReward` scores
  ``completions`` against a dataset column; :class:`GleuIdReward` scores
  ``completion_ids`` against a column of reference ids, without decoding. Both are
  picklable instances with a ``__name__``, as ``AsyncGRPOTrainer`` needs.
  TRL calls ``reward(prompts=..., completions=..., completion_ids=..., **columns)``;
  completions are strings, or lists of messages for conversational datasets.
- **veRL**: :func:`compute_score` (one sample, or a batch by keyword), loaded from
  ``google_bleu/verl_reward.py`` by ``reward.custom_reward_function.path`` / ``.name``.
- **OpenRLHF**: :func:`make_openrlhf_reward` builds ``reward_func(queries, prompts,
  labels)``; ``google_bleu/openrlhf_reward.py`` is the file for ``--remote_rm_url``.
- **verifiers**: :func:`make_verifiers_reward` builds a function for ``vf.Rubric``.

torch is imported only by the rewards that return tensors or count ids, when called.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .scorer import GLEU
from .stats import GleuStats
from .tokenizers import DEFAULT_TOKENIZER, Tokenizer
from .validation import describe

RewardFunction = Callable[..., "list[float]"]

# Trainer objects TRL passes besides the dataset columns; left out of error messages.
_TRL_OBJECTS = ("trainer_state", "log_extra", "log_metric")


# -- completions as text --------------------------------------------------------------------


def _field(message: Any, key: str) -> Any:
    # Messages are dicts (TRL, OpenAI) or pydantic models with attributes (verifiers).
    if isinstance(message, Mapping):
        return message.get(key)
    return getattr(message, key, None)


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) or (hasattr(value, "role") and hasattr(value, "content"))


def _message_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if content is None:  # an assistant turn that only calls tools has no text
        return ""
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        # Multimodal content parts: keep the text ones.
        return "".join(_field(part, "text") or "" for part in content if _field(part, "type") == "text")
    raise TypeError(f"completion {index}: message content must be a str, got {describe(content)}")


def completion_text(completion: Any, index: int = 0) -> str:
    """The text to score of one completion: a string, or the last assistant message's content.

    Messages may be dicts or objects with ``role`` and ``content`` attributes.

    Example:
        >>> completion_text("the cat")
        'the cat'
        >>> completion_text([{"role": "assistant", "content": "the cat"}])
        'the cat'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        messages = list(completion)
        if messages and all(map(_is_message, messages)):
            assistant = [message for message in messages if (_field(message, "role") or "assistant") == "assistant"]
            if not assistant:
                roles = [_field(message, "role") for message in messages]
                raise ValueError(f"completion {index} has no assistant message (roles {roles})")
            return _message_text(_field(assistant[-1], "content"), index)
    raise TypeError(
        f"completion {index} must be a str or a list of messages like "
        f'[{{"role": "assistant", "content": "..."}}], got {describe(completion)}'
    )


def _check_list(value: Any, name: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and not _is_array(value):
        raise TypeError(f"{name} must be a list, got {describe(value)}")
    return list(value)


def _is_array(value: Any) -> bool:
    # numpy arrays and torch tensors, without importing either.
    return hasattr(value, "ndim") and hasattr(value, "tolist")


def _text_references(value: Any, name: str) -> list[str]:
    """One segment's references: a string, or a non-empty list (or array) of strings."""
    if isinstance(value, str):
        return [value]
    if _is_array(value) and value.ndim == 1:
        value = value.tolist()
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        refs = list(value)
        if refs and all(isinstance(ref, str) for ref in refs):
            return refs
    raise TypeError(f"{name} must be a str or a non-empty list of str, got {describe(value)}")


def _check_name(name: Any) -> str:
    # Frameworks log rewards under this name (TRL: rewards/<name>/mean).
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {describe(name)}")
    if not name:
        raise ValueError("name must not be empty: frameworks log the reward under it")
    return name


# -- TRL ------------------------------------------------------------------------------------


class GleuReward:
    """A TRL reward: sentence GLEU of each completion against its references.

    A picklable callable instance, so it also works with ``AsyncGRPOTrainer``, which
    scores in a spawned child process without a GPU. Pickling keeps the settings; the
    scorer is rebuilt on unpickling (a callable tokenizer must itself be picklable).

    Args:
        reference_key: Dataset column with the references: per example a string or a
            list of strings (several references; counts may vary).
        tokenizer: Tokenizer name (default ``"13a"``) or callable ``str -> list[str]``.
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        name: The reward's ``__name__``, which TRL uses in its logs
            (``rewards/<name>/mean``).

    Calling it as ``reward(completions, **kwargs)`` returns one float in ``[0, 1]`` per
    completion; the other keyword arguments (``prompts``, ``completion_ids``,
    ``trainer_state``, other columns) are ignored.

    Raises:
        ValueError, TypeError: At construction for bad settings; at call time when the
            reference column is missing or a completion is neither text nor messages.

    Example:
        >>> reward = GleuReward("reference")
        >>> reward(["the cat sat on the mat", "a dog"], reference=["the cat ate the mat", ["a dog", "one dog"]])
        [0.3333333333333333, 1.0]
        >>> import pickle
        >>> pickle.loads(pickle.dumps(reward)).__name__
        'gleu'
    """

    def __init__(
        self,
        reference_key: str = "reference",
        tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
        *,
        lowercase: bool = False,
        min_len: int = 1,
        max_len: int = 4,
        name: str = "gleu",
    ) -> None:
        if not isinstance(reference_key, str):
            raise TypeError(f"reference_key must be a str naming a dataset column, got {describe(reference_key)}")
        self.scorer = GLEU(tokenizer, lowercase, min_len, max_len)  # bad settings fail here, not mid-training
        self.reference_key = reference_key
        self.__name__ = _check_name(name)
        self._tokenizer = tokenizer

    def __repr__(self) -> str:
        return f"GleuReward(reference_key={self.reference_key!r}, scorer={self.scorer!r}, name={self.__name__!r})"

    def __reduce__(self) -> tuple:
        options = {
            "lowercase": self.scorer.lowercase,
            "min_len": self.scorer.min_len,
            "max_len": self.scorer.max_len,
            "name": self.__name__,
        }
        return (functools.partial(type(self), **options), (self.reference_key, self._tokenizer))

    def stats(self, completions: Sequence[Any], **kwargs: Any) -> GleuStats:
        """Per-completion statistics (one row each), for rewards built on precision or recall."""
        if self.reference_key not in kwargs:
            columns = sorted(key for key in kwargs if key not in _TRL_OBJECTS)
            raise ValueError(
                f"the GLEU reward needs the references in the dataset column {self.reference_key!r}; "
                f"the trainer passed {columns}"
            )
        if isinstance(completions, (str, bytes)) or not isinstance(completions, Sequence):
            raise TypeError(f"completions must be a list, got {describe(completions)}")
        texts = [completion_text(completion, i) for i, completion in enumerate(completions)]
        return self.scorer.stats(texts, kwargs[self.reference_key])

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        return self.stats(completions, **kwargs).sentence_scores().tolist()


def make_gleu_reward(
    reference_key: str = "reference",
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    *,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    name: str = "gleu",
) -> GleuReward:
    """A TRL reward function: sentence GLEU of each completion against its references.

    The same as :class:`GleuReward` (arguments and behaviour are documented there).

    Example:
        >>> reward = make_gleu_reward()
        >>> reward(["the cat sat on the mat", "a dog"], reference=["the cat ate the mat", ["a dog", "one dog"]])
        [0.3333333333333333, 1.0]
        >>> reward([[{"role": "assistant", "content": "the cat"}]], reference=["the cat"])
        [1.0]
    """
    return GleuReward(reference_key, tokenizer, lowercase=lowercase, min_len=min_len, max_len=max_len, name=name)


def _is_id(value: Any) -> bool:
    return not isinstance(value, bool) and hasattr(value, "__index__")


def _id_references(value: Any, index: int, key: str) -> list:
    """One example's reference ids: a sequence of ids (one reference) or of id sequences."""
    if _is_array(value):
        if value.ndim == 1:
            return [value]
        if value.ndim == 2:
            return list(value)
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        items = list(value)
        if not items or _is_id(items[0]):
            return [items]  # one reference (possibly empty)
        return items
    raise TypeError(
        f"column {key!r}, example {index}: reference ids must be a list of ints or a list of such lists, "
        f"got {describe(value)}"
    )


class GleuIdReward:
    """A TRL reward on token ids: ``completion_ids`` against a column of reference ids.

    No decoding: each score equals nltk's ``sentence_gleu`` on the id lists (``==``),
    computed with :func:`google_bleu.batch_sentence_gleu` for the whole batch at once.
    Picklable, like :class:`GleuReward`.

    Args:
        reference_key: Dataset column with the reference ids: per example a list of
            ids (one reference) or a list of id lists (several). An empty list is one
            empty reference.
        pad_id: Id removed from completions and references before counting, e.g. the
            EOS id (TRL's ``completion_ids`` end with EOS when the model stopped).
            ``None``: every id counts.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        device: Where the ids are counted (default CPU).
        name: The reward's ``__name__`` in TRL's logs.

    Example:
        >>> reward = GleuIdReward("reference_ids", pad_id=2)
        >>> reward(completion_ids=[[5, 6, 7, 2], [9]], reference_ids=[[5, 6, 8], [[9], [4]]])
        [0.5, 1.0]
    """

    def __init__(
        self,
        reference_key: str = "reference_ids",
        *,
        pad_id: int | None = None,
        min_len: int = 1,
        max_len: int = 4,
        device: Any = None,
        name: str = "gleu_ids",
    ) -> None:
        from .validation import check_orders
        from .validation import check_pad_id as _check_pad_id

        if not isinstance(reference_key, str):
            raise TypeError(f"reference_key must be a str naming a dataset column, got {describe(reference_key)}")
        self.reference_key = reference_key
        self.pad_id = _check_pad_id(pad_id)
        self.min_len, self.max_len = check_orders(min_len, max_len)
        if device is not None and not isinstance(device, str) and type(device).__name__ != "device":
            raise TypeError(f"device must be None, a str or a torch.device, got {describe(device)}")
        self.device = device
        self.__name__ = _check_name(name)

    def __repr__(self) -> str:
        return (
            f"GleuIdReward(reference_key={self.reference_key!r}, pad_id={self.pad_id}, "
            f"min_len={self.min_len}, max_len={self.max_len}, name={self.__name__!r})"
        )

    def __call__(self, completions: Any = None, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        from .batched import batch_sentence_gleu

        if completion_ids is None:
            raise ValueError("the GLEU id reward needs completion_ids (TRL passes them to every reward function)")
        if self.reference_key not in kwargs:
            columns = sorted(key for key in kwargs if key not in (*_TRL_OBJECTS, "prompts"))
            raise ValueError(
                f"the GLEU id reward needs the reference ids in the dataset column {self.reference_key!r}; "
                f"the trainer passed {columns}"
            )
        hypotheses = _check_list(completion_ids, "completion_ids")
        column = _check_list(kwargs[self.reference_key], self.reference_key)
        if len(hypotheses) != len(column):
            raise ValueError(f"got {len(hypotheses)} completion_ids but {len(column)} values of {self.reference_key!r}")
        references = [_id_references(value, i, self.reference_key) for i, value in enumerate(column)]
        try:
            scores = batch_sentence_gleu(
                hypotheses,
                references,
                pad_id=self.pad_id,
                min_len=self.min_len,
                max_len=self.max_len,
                device=self.device,
            )
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"{error} (hypotheses: completion_ids; references: the column {self.reference_key!r})"
            ) from error
        return scores.tolist()


# -- veRL -----------------------------------------------------------------------------------


# typed: True == 1 and 1.0 == 1, but only 1 is a valid order (and only False a valid
# lowercase), so equal settings of another type must reach GLEU's checks, not the cache.
@functools.lru_cache(maxsize=16, typed=True)
def _cached_scorer(tokenizer: Any, lowercase: bool, min_len: int, max_len: int) -> GLEU:
    return GLEU(tokenizer, lowercase, min_len, max_len)


def _verl_scorer(options: dict[str, Any]) -> GLEU:
    settings = (
        options.get("tokenizer", DEFAULT_TOKENIZER),
        options.get("lowercase", False),
        options.get("min_len", 1),
        options.get("max_len", 4),
    )
    try:
        hash(settings)
    except TypeError:
        return GLEU(*settings)
    return _cached_scorer(*settings)


def _ratio(numerator: int, denominator: int) -> float:
    # Python int division, as GleuStats and nltk: correctly rounded.
    return numerator / denominator if denominator else 0.0


def _row_scores(stats: GleuStats) -> list[tuple[float, float, float]]:
    """``(score, precision, recall)`` of each row: ``n_match`` over ``n_all``, ``n_hyp``, ``n_ref``."""
    return [
        (_ratio(n_match, n_all), _ratio(n_match, n_hyp), _ratio(n_match, n_ref))
        for n_match, n_hyp, n_ref, n_all in stats.rows.tolist()
    ]


def _score_dicts(stats: GleuStats) -> list[dict[str, float]]:
    return [dict(zip(("score", "precision", "recall"), row)) for row in _row_scores(stats)]


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
            ``max_len``. Other keywords veRL may add (``reward_router_address``, ...)
            are ignored.

    Returns:
        ``{"score", "precision", "recall"}`` (sentence GLEU and the n-gram precision and
        recall against the chosen reference; veRL logs the extra keys), or a list of
        them for the batch form.

    Raises:
        TypeError: A response or reference of the wrong type, naming the argument.
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
    if not isinstance(solution_str, str):
        raise TypeError(f"solution_str must be the decoded response (a str), got {describe(solution_str)}")
    references = _text_references(ground_truth, "ground_truth")
    return _score_dicts(_verl_scorer(kwargs).stats([solution_str], [references]))[0]


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
    responses = _check_list(solution_strs, "solution_strs")
    truths = _check_list(ground_truths, "ground_truths")
    counts = {"solution_strs": len(responses), "ground_truths": len(truths)}
    for name, value in (("data_sources", data_sources), ("extra_infos", extra_infos)):
        if value is not None:
            counts[name] = len(_check_list(value, name))
    if len(set(counts.values())) > 1:
        raise ValueError(
            "batch lists need one entry per response, got " + ", ".join(f"{n} {k}" for k, n in counts.items())
        )
    for i, response in enumerate(responses):
        if not isinstance(response, str):
            raise TypeError(f"solution_strs[{i}] must be the decoded response (a str), got {describe(response)}")
    references = [_text_references(truth, f"ground_truths[{i}]") for i, truth in enumerate(truths)]
    return _score_dicts(_verl_scorer(kwargs).stats(responses, references))


# -- OpenRLHF -------------------------------------------------------------------------------

#: Special-token strings of common chat templates (ChatML/Qwen, Llama 3, Llama 2/Mistral,
#: Gemma), stripped by ``google_bleu/openrlhf_reward.py`` when no tokenizer is given.
COMMON_SPECIAL_TOKENS = (
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<s>",
    "</s>",
    "<bos>",
    "<eos>",
    "<pad>",
    "<start_of_turn>",
    "<end_of_turn>",
)


def _special_token_strings(special_tokens: Any) -> tuple[str, ...]:
    if hasattr(special_tokens, "all_special_tokens"):  # a Hugging Face tokenizer
        tokens = list(special_tokens.all_special_tokens)
        added = getattr(special_tokens, "added_tokens_decoder", None) or {}
        tokens += [str(token) for token in added.values() if getattr(token, "special", False)]
    elif isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Sequence):
        raise TypeError(
            "special_tokens must be a Hugging Face tokenizer or a list of special-token strings, "
            f"got {describe(special_tokens)}"
        )
    else:
        tokens = list(special_tokens)
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise TypeError(f"special_tokens must hold non-empty strings, got {describe(token)}")
    # Longest first, so "<|im_end|>" goes before any shorter token it contains.
    return tuple(sorted(set(tokens), key=lambda token: (-len(token), token)))


class OpenRLHFReward:
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: GLEU of each response.

    OpenRLHF decodes prompt + response with ``skip_special_tokens=False`` into each
    query. This reward removes the prompt (the query must start with it, as decoded or
    once special tokens are removed from both), removes every special-token string
    from the rest, and scores that response against its label.

    Build it with :func:`make_openrlhf_reward`.
    """

    def __init__(self, special_tokens: Any, scorer: GLEU, name: str = "gleu") -> None:
        self.special_tokens = _special_token_strings(special_tokens)
        self.scorer = scorer
        self.__name__ = _check_name(name)

    def __repr__(self) -> str:
        return f"OpenRLHFReward({len(self.special_tokens)} special tokens, scorer={self.scorer!r})"

    def _strip(self, text: str) -> str:
        for token in self.special_tokens:
            text = text.replace(token, "")
        return text

    def response(self, query: str, prompt: str, index: int = 0) -> str:
        """The response part of ``query`` without special tokens.

        Example:
            >>> reward = make_openrlhf_reward(["<|im_end|>"])
            >>> reward.response("Q: hi A: hello<|im_end|>", "Q: hi A: ")
            'hello'
        """
        if not isinstance(query, str):
            raise TypeError(f"queries[{index}] must be a str, got {describe(query)}")
        if not isinstance(prompt, str):
            raise TypeError(f"prompts[{index}] must be a str, got {describe(prompt)}")
        if query.startswith(prompt):
            return self._strip(query[len(prompt) :])
        query, prompt = self._strip(query), self._strip(prompt)
        if query.startswith(prompt):
            return query[len(prompt) :]
        raise ValueError(
            f"queries[{index}] does not start with prompts[{index}] (nor once special tokens are removed): "
            f"query begins {query[:40]!r}, prompt begins {prompt[:40]!r}"
        )

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict:
        import torch

        queries = _check_list(queries, "queries")
        prompts = _check_list(prompts, "prompts")
        labels = _check_list(labels, "labels")
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
        responses = [self.response(query, prompt, i) for i, (query, prompt) in enumerate(zip(queries, prompts))]
        references = [_text_references(label, f"labels[{i}]") for i, label in enumerate(labels)]
        rows = _row_scores(self.scorer.stats(responses, references))
        scores, precision, recall = (
            torch.tensor([row[column] for row in rows], dtype=torch.float64) for column in range(3)
        )
        return {
            "rewards": scores,
            "scores": scores.clone(),
            "extra_logs": {f"{self.__name__}_precision": precision, f"{self.__name__}_recall": recall},
        }


def make_openrlhf_reward(
    special_tokens: Any,
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    *,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    name: str = "gleu",
) -> OpenRLHFReward:
    """An OpenRLHF ``reward_func(queries, prompts, labels, **kwargs)`` scoring GLEU.

    Args:
        special_tokens: What to strip from responses: a Hugging Face tokenizer (its
            special and added special tokens) or a list of strings (an empty list
            strips nothing).
        tokenizer: The GLEU tokenizer name (default ``"13a"``) or callable.
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        name: Prefix of the logged keys (``<name>_precision``, ``<name>_recall``).

    Returns:
        A callable returning ``{"rewards": Tensor, "scores": Tensor, "extra_logs":
        {"<name>_precision": Tensor, "<name>_recall": Tensor}}``, float64 tensors with
        one value per query (exactly the scorer's values; OpenRLHF converts them).

    Raises:
        ValueError, TypeError: Bad settings here; at call time, lists of different
            lengths, a query that does not start with its prompt, a label that is not
            a str or list of str.

    Example:
        >>> reward_func = make_openrlhf_reward(["<|im_end|>"])
        >>> out = reward_func(["<|im_start|>user hi<|im_start|>assistant the cat sat<|im_end|>"],
        ...                   ["<|im_start|>user hi<|im_start|>assistant "], ["the cat sat"])
        >>> out["rewards"].tolist(), sorted(out["extra_logs"])
        ([1.0], ['gleu_precision', 'gleu_recall'])
    """
    return OpenRLHFReward(special_tokens, GLEU(tokenizer, lowercase, min_len, max_len), name)


# -- verifiers ------------------------------------------------------------------------------


class VerifiersReward:
    """A reward function for ``verifiers.Rubric``: GLEU of the completion against the answer.

    The rubric calls it with keywords (``prompt``, ``completion``, ``answer``, ``state``,
    ``info``, ...); completions are strings or message lists (dicts or verifiers'
    message objects), and the last assistant message is scored. Build it with
    :func:`make_verifiers_reward`.
    """

    def __init__(self, scorer: GLEU, info_key: str | None, name: str) -> None:
        if info_key is not None and not isinstance(info_key, str):
            raise TypeError(f"info_key must be None or a str, got {describe(info_key)}")
        self.scorer = scorer
        self.info_key = info_key
        self.__name__ = _check_name(name)

    def __repr__(self) -> str:
        return f"VerifiersReward(info_key={self.info_key!r}, scorer={self.scorer!r}, name={self.__name__!r})"

    def __call__(self, completion: Any, answer: Any = None, info: Any = None, **kwargs: Any) -> float:
        if self.info_key is None:
            references = _text_references(answer, "answer")
        else:
            if not isinstance(info, Mapping) or self.info_key not in info:
                keys = sorted(info) if isinstance(info, Mapping) else describe(info)
                raise ValueError(f"the GLEU reward reads the references from info[{self.info_key!r}]; info has {keys}")
            references = _text_references(info[self.info_key], f"info[{self.info_key!r}]")
        return self.scorer.stats([completion_text(completion)], [references]).sentence_scores().tolist()[0]


def make_verifiers_reward(
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    *,
    info_key: str | None = None,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    name: str = "gleu",
) -> VerifiersReward:
    """A ``verifiers.Rubric`` reward function: sentence GLEU of each completion.

    Args:
        tokenizer: The GLEU tokenizer name (default ``"13a"``) or callable.
        info_key: Read the references from ``info[info_key]`` (a string or a list of
            strings) instead of ``answer`` (the default).
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        name: The function's ``__name__``: the rubric's metric name.

    Example:
        >>> gleu = make_verifiers_reward()
        >>> gleu(completion=[{"role": "assistant", "content": "the cat sat"}], answer="the cat sat", state={})
        1.0
        >>> make_verifiers_reward(info_key="references")(completion="a dog", info={"references": ["one dog", "a dog"]})
        1.0
    """
    return VerifiersReward(GLEU(tokenizer, lowercase, min_len, max_len), info_key, name)
