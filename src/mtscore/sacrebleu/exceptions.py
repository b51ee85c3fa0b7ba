"""The drop-in's errors for mis-shaped input: each is an mtscore error (one-line message saying what was wrong;
:class:`~mtscore.errors.InvalidParameterError`, so also ``ValueError`` and ``TypeError``) *and* the exception
type sacreBLEU raises for the same mistake, or the one callers catch for it, so ``except KeyError:`` and the
like keep working. The table is in docs/sacrebleu.md ("Errors")."""
from __future__ import annotations

from ..errors import InvalidParameterError


class SacreBLEUInputError(InvalidParameterError):
    """Mis-shaped arguments to the drop-in's API (``ValueError`` and ``TypeError``)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class ReferenceLengthError(SacreBLEUInputError, EOFError):
    """A reference stream whose length differs from the hypotheses' (sacreBLEU 2 truncates silently; 1.x raised
    ``EOFError``, which callers written for it catch)."""


class NoReferencesError(SacreBLEUInputError, IndexError):
    """``refs=[]``: no reference stream (sacreBLEU: ``IndexError``)."""


class UnknownTokenizerError(SacreBLEUInputError, KeyError):
    """``tokenize=`` names no tokenizer (sacreBLEU: ``KeyError``)."""


class UnknownSmoothingError(SacreBLEUInputError, AssertionError):
    """``smooth_method=`` names no smoothing method (sacreBLEU: ``AssertionError``)."""


class NoCachedReferencesError(SacreBLEUInputError, RuntimeError):
    """``corpus_score(hyps, None)`` with no references given to the constructor (sacreBLEU: ``RuntimeError``)."""


__all__ = ["SacreBLEUInputError", "ReferenceLengthError", "NoReferencesError", "UnknownTokenizerError",
           "UnknownSmoothingError", "NoCachedReferencesError"]
