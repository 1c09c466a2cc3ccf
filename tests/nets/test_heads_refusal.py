"""A head count that does not divide the width is refused in one line that lists the ones
that do (the paper's network and the linear-attention mixer say the same)."""

import pytest

from seprank.errors import ConfigError
from seprank.nets import LinearAttention, LinearSelfAttention


@pytest.mark.parametrize("cls", [LinearSelfAttention, LinearAttention])
def test_heads_refusal_lists_the_divisors(cls):
    with pytest.raises(ConfigError, match=r"^heads=4 must divide width=6 \(the heads that do: "
                                          r"1, 2, 3, 6\)$"):
        cls(depth=1, width=6, heads=4, seq_len=2)
