"""IWSLT's XML files, read as WMT's SGML-like ones."""
from .fake_sgml import FakeSGMLDataset


class IWSLTXMLDataset(FakeSGMLDataset):
    """IWSLT test sets (``iwslt17`` ...)."""
