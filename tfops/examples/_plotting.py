"""Typed views of the matplotlib calls the examples make (matplotlib comes with the optional
extra ``tfops[examples]``; this module imports it only for the type checkers).

matplotlib's annotations leave ``**kwargs`` without a type on most of its methods, so pyright's
strict mode finds each such method "partially unknown" wherever it is used. These protocols state
the calls the examples make, with their types. matplotlib's ``Figure`` and ``Axes`` match them as
they are: an example declares its figure and axes with these types, and the checkers check every
call (mypy and pyright both check that matplotlib's classes match), with no cast and no ignore.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import matplotlib.axes
    import matplotlib.figure
    from matplotlib.gridspec import SubplotSpec
    from matplotlib.typing import LegendLocType
    from numpy.typing import ArrayLike

__all__ = ["Axes", "Figure", "GridFigure", "GridSpecLike", "SubplotPlace", "save"]


class Axes(Protocol):
    """The methods of ``matplotlib.axes.Axes`` that the examples call, with the keywords they
    pass. (``plt.subplots`` types its axes as ``Any``: an example declares them with this type.)
    """

    def plot(
        self,
        *args: ArrayLike | str,
        color: str = ...,
        lw: float = ...,
        ms: float = ...,
        label: str | None = ...,
    ) -> object: ...

    def semilogy(
        self,
        *args: ArrayLike | str,
        color: str = ...,
        lw: float = ...,
        ms: float = ...,
        label: str = ...,
    ) -> object: ...

    def hist(
        self,
        x: ArrayLike,
        *,
        bins: int = ...,
        density: bool = ...,
        color: str = ...,
        label: str = ...,
    ) -> object: ...

    def bar(
        self,
        x: ArrayLike,
        height: ArrayLike,
        width: float = ...,
        *,
        color: str = ...,
        label: str = ...,
    ) -> object: ...

    def barh(self, y: ArrayLike, width: ArrayLike, *, color: Sequence[str] = ...) -> object: ...

    def axhline(
        self,
        y: float = ...,
        *,
        color: str = ...,
        linestyle: str = ...,
        ls: str = ...,
        lw: float = ...,
        label: str = ...,
    ) -> object: ...

    def axvline(
        self, x: float = ..., *, color: str = ..., linestyle: str = ..., label: str = ...
    ) -> object: ...

    def axvspan(
        self, xmin: float, xmax: float, *, color: str = ..., alpha: float = ..., label: str = ...
    ) -> object: ...

    def imshow(
        self, X: ArrayLike, cmap: str = ..., *, vmin: float = ..., vmax: float = ...
    ) -> object: ...

    def set(
        self,
        *,
        title: str = ...,
        xlabel: str = ...,
        ylabel: str = ...,
        ylim: tuple[float, float] = ...,
        yscale: str = ...,
    ) -> object: ...

    def set_xlabel(self, xlabel: str) -> object: ...

    def set_ylabel(self, ylabel: str) -> object: ...

    def set_title(self, label: str, *, fontsize: float = ..., x: float = ...) -> object: ...

    def set_xscale(self, value: str) -> object: ...

    def set_xlim(self, left: float, right: float) -> object: ...

    def set_xticks(self, ticks: ArrayLike, labels: Iterable[str] | None = ...) -> object: ...

    def set_yticks(
        self, ticks: ArrayLike, labels: Iterable[str] | None = ..., *, fontsize: float = ...
    ) -> object: ...

    def invert_yaxis(self) -> object: ...

    def legend(self, *, fontsize: float = ..., loc: LegendLocType = ...) -> object: ...


class Figure(Protocol):
    """A figure that can be written to a file: ``matplotlib.figure.Figure.savefig``."""

    def savefig(self, fname: str, *, dpi: float = ...) -> None: ...


class GridFigure(Figure, Protocol):
    """A figure laid out on a grid: ``add_gridspec``, ``add_subplot`` and ``subplots_adjust``."""

    def add_gridspec(
        self, nrows: int, ncols: int, *, width_ratios: Sequence[float], wspace: float
    ) -> GridSpecLike: ...

    def add_subplot(self, spec: SubplotSpec, /) -> Axes: ...

    def subplots_adjust(
        self, *, left: float, right: float, bottom: float, top: float
    ) -> object: ...


class GridSpecLike(Protocol):
    """A grid of subplot places (``matplotlib.gridspec.GridSpecBase``), indexed by place."""

    def __getitem__(self, key: tuple[int, int] | int, /) -> SubplotSpec: ...


class SubplotPlace(Protocol):
    """One place of a grid (``matplotlib.gridspec.SubplotSpec``), divided into a grid."""

    def subgridspec(
        self,
        nrows: int,
        ncols: int,
        *,
        height_ratios: Sequence[float],
        wspace: float,
        hspace: float,
    ) -> GridSpecLike: ...


def save(figure: Figure, path: str, dpi: float | None = None) -> None:
    """Writes ``figure`` to ``path``, at ``dpi`` dots per inch (the figure's own if ``None``)."""
    if dpi is None:
        figure.savefig(path)
    else:
        figure.savefig(path, dpi=dpi)


if TYPE_CHECKING:

    def matplotlibMatches(
        axes: matplotlib.axes.Axes, figure: matplotlib.figure.Figure
    ) -> tuple[Axes, GridFigure]:
        """Never defined at run time: the checkers check that matplotlib's classes match the
        protocols, so a protocol cannot promise a call that matplotlib's own types refuse."""
        return axes, figure
