"""Bit tests of card masks in one machine instruction, for the compiled searches (issue 22).

A loop that shifts a mask until its low bit is set costs up to 32 steps; the double-dummy searches find a
seat's cards that way at every position, so they use the processor's count of trailing zeros (and of leading
zeros, and of set bits) instead, through LLVM's intrinsics (numba has no Python spelling of them).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

_NOT_POISON = ir.Constant(ir.IntType(1), 0)      # a count of zeros is defined for 0 too


def _of_int64(name: str, doc: str, emit):
    """An intrinsic taking and returning an int64, its value built by ``emit(builder, argument)``."""
    def typer(typingctx, m):
        if not isinstance(m, types.Integer):
            return None
        return types.int64(types.int64), lambda context, builder, sig, args: emit(builder, args[0])

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


lowest = _of_int64("lowest", "The index of the lowest set bit of the int64 ``m`` (64 when ``m`` is 0): the first "
                   "card of a mask.", lambda b, m: b.cttz(m, _NOT_POISON))
highest = _of_int64("highest", "The index of the highest set bit of the int64 ``m`` (-1 when ``m`` is 0).",
                    lambda b, m: b.sub(ir.Constant(ir.IntType(64), 63), b.ctlz(m, _NOT_POISON)))
count = _of_int64("count", "The number of set bits of the int64 ``m``: how many cards a mask holds.",
                  lambda b, m: b.ctpop(m))
