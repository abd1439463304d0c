"""kafka-python checks the CRC-32C of every record batch it reads or writes; without the C
implementation (the `crc32c` package, a dependency of the parts that read the log) it does so
in pure Python, and reading the log is about eight times slower."""

from __future__ import annotations

import pytest
from kafka.record import util

pytestmark = pytest.mark.unit


def test_record_batches_are_checked_by_the_c_implementation() -> None:
    assert util.crc32c_c is not None, "the crc32c package is not installed"
    assert util.calc_crc32c.__defaults__ == (util.crc32c_c,)


def test_it_computes_the_standard_check_value() -> None:
    assert util.calc_crc32c(memoryview(b"123456789")) == 0xE3069283  # RFC 3720's check value
