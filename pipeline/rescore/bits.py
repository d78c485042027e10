"""Bit tests of card masks in one machine instruction, for the compiled searches (issue 22).

A loop that shifts a mask until its low bit is set costs up to 32 steps; the double-dummy searches find a
seat's cards that way at every position, so they use the processor's count of trailing zeros (and of set
bits) instead, through LLVM's intrinsics (numba has no Python spelling of them).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic


@intrinsic
def lowest(typingctx, m):
    """The index of the lowest set bit of the int64 ``m`` (64 when ``m`` is 0): the first card of a mask."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def highest(typingctx, m):
    """The index of the highest set bit of the int64 ``m`` (-1 when ``m`` is 0)."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        zeros = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
        return builder.sub(ir.Constant(ir.IntType(64), 63), zeros)

    return types.int64(types.int64), codegen


@intrinsic
def count(typingctx, m):
    """The number of set bits of the int64 ``m``: how many cards a mask holds."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen
