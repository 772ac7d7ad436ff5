"""The marked code blocks of the README and the guides, so that tests can run them as written.

A block is marked by an HTML comment ``<!-- test: NAME -->`` on the line before its
```` ```python ```` fence; the comment does not show on the rendered page. Names are
unique across ``README.md`` and ``docs/*.md``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_BLOCK = re.compile(r"<!-- test: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def marked_blocks() -> dict[str, tuple[Path, str]]:
    """Every marked block by name: the page it is on and its code."""
    blocks: dict[str, tuple[Path, str]] = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for match in _BLOCK.finditer(page.read_text("utf-8")):
            if match["name"] in blocks:
                raise ValueError(
                    f"block {match['name']!r} is marked in {blocks[match['name']][0].name} and {page.name}"
                )
            blocks[match["name"]] = (page, match["code"])
    return blocks


def readme_snippet(name: str) -> str:
    """The code of the block marked ``name`` (in the README or a guide)."""
    blocks = marked_blocks()
    if name not in blocks:
        raise ValueError(f"no page has a block marked {name!r}; marked: {sorted(blocks)}")
    return blocks[name][1]


# -- every python block, with its prelude ----------------------------------------------
# A block that is a fragment (it uses names an earlier block, the text or the reader's own
# program define) says so in the text; what completes it when it runs alone is its prelude,
# below, by the name of its marker. The suite runs every block that is not a ``>>>`` session
# (those are doctests) alone in a fresh ``python`` with its prelude, and the README's blocks,
# all of them, in order in one interpreter without preludes (``run_in_order``).
#: The names the blocks of docs/scale.md take from the one before them.
_SCALE_SAMPLE = """\
from pathlib import Path
import google_bleu
from google_bleu import GLEU
sample = Path(google_bleu.__file__).parent / "samples" / "wmt17_en_de"
references = (sample / "ref0.txt").read_text("utf-8").splitlines()
predictions = (sample / "sys_online-A.0.txt").read_text("utf-8").splitlines()
"""

#: The code a fragment needs first, by the name of its block (``<!-- test: NAME -->``): code,
#: or the name of another block, which runs first (with its own prelude). The pages say in
#: words what a fragment continues or takes from the reader; the values that run it alone
#: are here, where a reader of the page does not meet them.
PRELUDES: dict[str, str] = {
    "lighteval": """\
# A custom model that replays the WMT17 system online-B.0 (tests/frameworks/lighteval).
model_name, model_file = "online-B.0", "tests/frameworks/lighteval/wmt17_model.py"
""",
    "porting-sacrebleu": "porting-data",
    "porting-orientation": "porting-data",
    "porting-evaluate": "porting-data",
    "porting-nltk": "porting-data",
    "file-stats": _SCALE_SAMPLE,
    "ray-recipe": _SCALE_SAMPLE,
    "daft-recipe": _SCALE_SAMPLE,
    "spark-recipe": _SCALE_SAMPLE,
    "datasets-map": _SCALE_SAMPLE,
    "scale-torch-distributed": _SCALE_SAMPLE,
    "trainer": """\
import tempfile
import datasets
import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers, processors
words = "<pad> </s> <s> <unk> the cat sat on mat dog ate a red big".split()
backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
tokenizer = transformers.PreTrainedTokenizerFast(
    tokenizer_object=backend, pad_token="<pad>", eos_token="</s>", bos_token="<s>", unk_token="<unk>")
torch.manual_seed(2)
model = transformers.BartForConditionalGeneration(transformers.BartConfig(
    vocab_size=len(words), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
    decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
    pad_token_id=0, bos_token_id=2, eos_token_id=1, decoder_start_token_id=1)).eval()
model.generation_config = transformers.GenerationConfig(
    max_length=9, decoder_start_token_id=1, eos_token_id=1, pad_token_id=0, bos_token_id=2)
encoded = tokenizer(["the cat sat on the mat", "a dog ate", "the big red cat"])
encoded["labels"] = tokenizer(["the cat sat", "a dog sat", "the big cat sat"])["input_ids"]
eval_dataset = datasets.Dataset.from_dict(dict(encoded))
data_collator = transformers.DataCollatorForSeq2Seq(tokenizer, model=model)
output_dir = tempfile.mkdtemp()
""",
    "evaluate-distributed": """\
import tempfile
world_size, rank = 1, 0
experiment_id, cache_dir = "gleu-dev", tempfile.mkdtemp()
my_predictions, my_references = ["the cat sat on the mat"], [["the cat ate the mat"]]
""",
    "torch-distributed": """\
import os
import socket
with socket.socket() as free:
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
my_predictions, my_references = ["the cat sat on the mat"], [["the cat ate the mat"]]
""",
}

_PYTHON = re.compile(r"(?:<!-- test: (?P<name>[\w-]+) -->\n)?```python\n(?P<code>.*?)\n```", re.DOTALL)


class PythonBlock:
    """One ```python block of a page: where it is, its code and its prelude's code."""

    def __init__(self, page: Path, line: int, name: str | None, code: str, prelude: str) -> None:
        self.page, self.line, self.name, self.code, self.prelude = page, line, name, code, prelude

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}" + (f" ({self.name})" if self.name else "")

    @property
    def is_doctest(self) -> bool:
        return self.code.lstrip().startswith(">>>")

    def source(self) -> str:
        """The prelude and the block, as one script."""
        return f"{self.prelude}\n{self.code}\n" if self.prelude else f"{self.code}\n"


def _page_blocks(page: Path) -> list[tuple[int, str | None, str]]:
    """``(line of the fence, 1-based; marker name or None; code)`` of each ```python block of a page."""
    text = page.read_text("utf-8")
    return [(text.count("\n", 0, m.start("code")), m["name"], m["code"]) for m in _PYTHON.finditer(text)]


def python_blocks() -> list[PythonBlock]:
    """Every ```python block of the README and the guides, in page order."""
    found: list[tuple[Path, int, str | None, str, str]] = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for line, name, code in _page_blocks(page):
            found.append((page, line, name, code, PRELUDES.get(name or "", "").strip("\n")))
    by_name = {name: (code, prelude) for _, _, name, code, prelude in found if name}

    def expand(prelude: str, seen: tuple[str, ...]) -> str:
        if not re.fullmatch(r"\s*[\w-]+\s*", prelude):
            return prelude  # code
        name = prelude.strip()
        if name not in by_name:
            raise ValueError(f"prelude names {name!r}, which no block is marked")
        if name in seen:
            raise ValueError(f"preludes form a cycle: {' -> '.join((*seen, name))}")
        code, its_prelude = by_name[name]
        return f"{expand(its_prelude, (*seen, name))}\n{code}" if its_prelude else code

    return [PythonBlock(page, line, name, code, expand(prelude, ())) for page, line, name, code, prelude in found]


def run_in_order(page: Path | str) -> None:
    """Every python block of ``page``, in page order, in one namespace, as a reader pastes them
    into one interpreter (no prelude): a ``>>>`` session as a doctest (with the flags of
    pyproject.toml), any other block as a script. Prints ``<where> ok`` after each block; the
    first that fails raises, naming it."""
    import doctest

    page = Path(page)
    namespace: dict = {"__name__": "__main__"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for line, name, code in _page_blocks(page):
        block = PythonBlock(page, line, name, code, "")
        if block.is_doctest:
            test = doctest.DocTestParser().get_doctest(code, namespace, block.where, str(page), line)
            report: list[str] = []
            if runner.run(test, out=report.append, clear_globs=False).failed:
                raise AssertionError(f"{block.where} fails after the blocks before it:\n{''.join(report)}")
            namespace = test.globs  # a copy, with what the session bound
        else:
            exec(compile(code, block.where, "exec"), namespace)  # a traceback names the block
        print(f"{block.where} ok", flush=True)


#: A trailing comment that says what its line prints: a list, a dict or a decimal number.
_CLAIM = re.compile(r"#\s*((?:[\[{]|\d+\.\d).*)$")


def claimed_output(code: str) -> list[str]:
    """The lines a block says it prints, from its trailing comments (:data:`_CLAIM`)."""
    return [m[1].strip() for line in code.splitlines() if (m := _CLAIM.search(line))]


def run_script(source: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``source`` as ``block.py`` in ``cwd``, run by this interpreter (``env`` as given, else
    this process's), with its output captured and a five-minute limit."""
    script = cwd / "block.py"
    script.write_text(source, "utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
