"""Four small retrieval systems in numpy for the sample database (deliberately unequal).

- `bm25`: Okapi BM25 (k1 = 1.2, b = 0.75) over title + text, query = title + description;
- `tfidf`: cosine between log-tf x idf vectors, query = title only;
- `qld`: query likelihood with Dirichlet smoothing (mu = 250), query = title only;
- `doclen`: the weak baseline: longer documents first, blind to the query (a little seeded
  noise breaks the many ties).

Every scorer returns one score per document for one query; `rank_all` keeps the top N.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    """a about after all also an and any are as at be before but by can do does for from
    get give gives has have how i if in into is it its just keep let like make makes many
    may me more most much my no not of on once one or other out over own so some such than
    that the their them then there these they this those through to too under up us very
    was way we what when where which while who why will with you your""".split()
)


def stem(word: str) -> str:
    """A very light suffix stripper: plural and -ing/-ed forms meet their stem."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + keep
    return word


def tokenize(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


@dataclass
class Index:
    """A dense document x term count matrix (the sample is small: 300 x ~1 500)."""

    vocab: dict[str, int]
    tf: np.ndarray  # (n_docs, n_terms) counts
    lengths: np.ndarray  # tokens per document
    df: np.ndarray  # documents containing each term

    @classmethod
    def build(cls, texts: list[str]) -> "Index":
        tokens = [tokenize(t) for t in texts]
        vocab: dict[str, int] = {}
        for doc in tokens:
            for w in doc:
                vocab.setdefault(w, len(vocab))
        tf = np.zeros((len(texts), len(vocab)), dtype=np.float64)
        for i, doc in enumerate(tokens):
            ids = np.fromiter((vocab[w] for w in doc), dtype=np.int64, count=len(doc))
            np.add.at(tf[i], ids, 1.0)
        return cls(vocab, tf, tf.sum(axis=1), (tf > 0).sum(axis=0))

    @property
    def n_docs(self) -> int:
        return self.tf.shape[0]

    def query_vector(self, text: str) -> np.ndarray:
        q = np.zeros(len(self.vocab))
        for w in tokenize(text):
            if w in self.vocab:
                q[self.vocab[w]] += 1.0
        return q


def bm25(index: Index, query: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    q = index.query_vector(query)
    idf = np.log(1.0 + (index.n_docs - index.df + 0.5) / (index.df + 0.5))
    norm = k1 * (1.0 - b + b * index.lengths / index.lengths.mean())
    weights = index.tf * (k1 + 1.0) / (index.tf + norm[:, None])
    return weights @ (idf * q)


def tfidf_cosine(index: Index, query: str) -> np.ndarray:
    idf = np.log(index.n_docs / np.maximum(index.df, 1))
    docs = np.where(index.tf > 0, 1.0 + np.log(np.maximum(index.tf, 1.0)), 0.0) * idf
    q = index.query_vector(query)
    q = np.where(q > 0, 1.0 + np.log(np.maximum(q, 1.0)), 0.0) * idf
    denom = np.linalg.norm(docs, axis=1) * max(np.linalg.norm(q), 1e-12)
    return (docs @ q) / np.maximum(denom, 1e-12)


def query_likelihood(index: Index, query: str, mu: float = 250.0) -> np.ndarray:
    q = index.query_vector(query)
    collection = index.tf.sum(axis=0) / index.tf.sum()
    terms = np.flatnonzero(q)
    if len(terms) == 0:
        return np.zeros(index.n_docs)
    p = (index.tf[:, terms] + mu * collection[terms]) / (index.lengths[:, None] + mu)
    return np.log(p) @ q[terms]


def doc_length(index: Index, query: str, rng: np.random.Generator) -> np.ndarray:
    return index.lengths + rng.random(index.n_docs)


def top_n(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n best scores, best first (stable for ties)."""
    order = np.argsort(-scores, kind="stable")
    return order[:n]
