"""Tile-level TMA kernels the dispatch and runtime tests share: a load of a region into a
(swizzled) shared tile, and a store (or reduction) of a shared tile into two column halves of
the output."""

from __future__ import annotations

SYNC = """tirx.kernel @tma(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<{r}x{c}xf16, global>)
    grid [2] threads [128] target "cuda -arch=sm_90a" {{
  %cta = tirx.cta_id x : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %cta, %c64 : index
  %s = tirx.alloc : !tirx.buffer<{r}x{c}xf16, shared>
  %a = tirx.slice %A[%row, %c64] [{r}, {c}] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<{r}x{c}xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" : !tirx.buffer<{r}x{c}xf16, shared>, !tirx.buffer<{r}x{c}xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<{r}x{c}xf16, global>, !tirx.buffer<{r}x{c}xf16, shared>
  tirx.return
}}
"""

STORE = """tirx.kernel @st(%A: !tirx.buffer<{r2}x{c}x{t}, global>{more_in}) -> (%O: !tirx.buffer<{r}x{c2}x{t}, global>)
    grid [2] threads [128] target "cuda -arch=sm_90a" {{
  %cta = tirx.cta_id x : index
  %cr = arith.constant {r} : index
  %cc = arith.constant {c} : index
  %c0 = arith.constant 0 : index
  %row = arith.muli %cta, %cr : index
  %col = arith.muli %cta, %cc : index
  %s = tirx.alloc : !tirx.buffer<{r}x{c}x{t}, shared>
  %a = tirx.slice %A[%row, %c0] [{r}, {c}] : !tirx.buffer<{r2}x{c}x{t}, global> -> !tirx.buffer<{r}x{c}x{t}, global>
  tirx.copy cta %s, %a : !tirx.buffer<{r}x{c}x{t}, shared>, !tirx.buffer<{r}x{c}x{t}, global>
  %o = tirx.slice %O[%c0, %col] [{r}, {c}] : !tirx.buffer<{r}x{c2}x{t}, global> -> !tirx.buffer<{r}x{c}x{t}, global>
{init}  tirx.copy_async {scope} %o, %s dispatch "{variant}"{config} : !tirx.buffer<{r}x{c}x{t}, global>, !tirx.buffer<{r}x{c}x{t}, shared>
  tirx.return
}}
"""

INIT = """  %b = tirx.slice %B[%c0, %col] [{r}, {c}] : !tirx.buffer<{r}x{c2}x{t}, global> -> !tirx.buffer<{r}x{c}x{t}, global>
  tirx.copy cta %o, %b : !tirx.buffer<{r}x{c}x{t}, global>, !tirx.buffer<{r}x{c}x{t}, global>
"""


def store_kernel(rows, cols, t="f16", variant="tma_auto", reduce=None, scope="cta") -> str:
    f = dict(r=rows, c=cols, r2=2 * rows, c2=2 * cols, t=t, variant=variant, scope=scope)
    config = "" if reduce is None else f' config {{use_tma_reduce = "{reduce}"}}'
    more_in = "" if reduce is None else f", %B: !tirx.buffer<{rows}x{2 * cols}x{t}, global>"
    return STORE.format(**f, config=config, more_in=more_in,
                        init="" if reduce is None else INIT.format(**f))
