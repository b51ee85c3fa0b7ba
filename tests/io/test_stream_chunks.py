"""iter_parallel_chunks slices the readers' blocks into aligned chunks (no Python step per line): the chunks
are those of the files read whole and cut every chunk_size lines, for any block size (streaming);
files of different lengths still give the error with every file's full line count. About 3 s."""
import pytest
from hypothesis import given, settings, strategies as st

from mtscore.errors import InputError
from mtscore.io import read_segments
from mtscore.io import stream as stream_mod
from mtscore.io.stream import iter_parallel_chunks

_LINES = st.lists(st.text(alphabet="ab é\r", max_size=5), max_size=30)


def _write(tmp_path, name, lines, final_break):
    p = tmp_path / name
    p.write_bytes(("\n".join(lines) + ("\n" if final_break and lines else "")).encode("utf-8"))
    return p


@settings(max_examples=150, deadline=None)
@given(lines=_LINES, final_break=st.booleans(), block=st.integers(1, 9), chunk=st.integers(1, 7), extra=st.integers(0, 3))
def test_chunks_are_the_whole_files_cut_every_chunk_size_lines(tmp_path_factory, lines, final_break, block, chunk, extra):
    tmp = tmp_path_factory.mktemp("c")
    a = _write(tmp, "a.txt", lines, final_break)
    b = _write(tmp, "b.txt", [ln.upper() for ln in lines], final_break)
    whole = [read_segments(a), read_segments(b)]
    saved = stream_mod.BLOCK
    stream_mod.BLOCK = block
    try:
        got = list(iter_parallel_chunks([str(a), str(b)], chunk))
        n = len(whole[0])
        want = [[col[i:i + chunk] for col in whole] for i in range(0, n, chunk)]
        assert [c.columns for c in got] == want
        assert [c.start for c in got] == list(range(0, n, chunk))
        assert [c.index for c in got] == list(range(len(want)))
        if extra:  # one more line in a third file: the error gives every file's full count
            c = _write(tmp, "c.txt", lines + ["x"] * extra, final_break)
            m = len(read_segments(c))
            if m != n:
                with pytest.raises(InputError) as err:
                    list(iter_parallel_chunks([str(a), str(b), str(c)], chunk))
                for name, k in (("a.txt", n), ("b.txt", n), ("c.txt", m)):
                    assert f"{name} has {k} line{'' if k == 1 else 's'}" in str(err.value)
    finally:
        stream_mod.BLOCK = saved
