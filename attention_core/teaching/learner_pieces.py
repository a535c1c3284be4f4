"""The pieces later cells run: the learner's own where its checker passed, the library's otherwise.

A lab names its pieces and says where the library's live; its checkers put a piece that passes in, and take
one that fails out:

    class Tools(LearnerPieces):
        names = ("mean_ablate", "head_attribution")
        heading = "nb12.tools_report"                 # i18n key: "tools in use: "

        def library(self, name):
            return globals()[name]

    tools = Tools()
    tools.use("mean_ablate", my_ablate)      # after its checker passed
    tools.mean_ablate(...)                   # the learner's now; tools.head_attribution(...) the library's
    tools.which()                            # {"mean_ablate": "yours", "head_attribution": "library"}
"""
from __future__ import annotations

from attention_core.teaching import i18n

# The words of every report, English and Chinese side by side (registered with i18n on import); the heading
# ("tools in use: ") is the lab's.
STRINGS: dict[str, dict[str, str]] = {
    "learner_pieces.yours": {"en": "(yours)", "zh": "（你的）"},
    "learner_pieces.library": {"en": "(the library's)", "zh": "（库里的）"},
}
i18n.register(STRINGS)


class LearnerPieces:
    """A piece by name: the learner's function once its checker passed, the library's until then."""

    names: tuple[str, ...] = ()
    heading: str = ""                                # the i18n key of report()'s first words

    def __init__(self):
        self.mine: dict = {}

    def library(self, name: str):
        """The library's own function `name` (each lab says where its functions live)."""
        raise NotImplementedError

    def stand_in(self, name: str):
        """What later cells run while the learner has no `name` of their own: the library's function."""
        return self.library(name)

    def use(self, name: str, fn) -> None:
        if name not in self.names:
            raise ValueError(f"name: expected one of {self.names}, got {name!r}")
        if fn is self.library(name):
            self.mine.pop(name, None)                        # the library's own: nothing of the learner's
        else:
            self.mine[name] = fn

    def drop(self, name: str) -> None:
        self.mine.pop(name, None)

    def __getattr__(self, name):
        if name not in type(self).names:
            raise AttributeError(name)
        mine = self.__dict__["mine"]
        return mine[name] if name in mine else self.stand_in(name)

    def which(self) -> dict:
        return {name: "yours" if name in self.mine else "library" for name in self.names}

    def label(self, name: str, lang: str | None = None) -> str:
        """`name` and whose it is: "gpt_forward (yours)" or "gpt_forward (the library's)" (zh "gpt_forward（你的）"),
        for a printed line that says whose piece ran; report() lists every piece this way."""
        if name not in self.names:
            raise ValueError(f"name: expected one of {self.names}, got {name!r}")
        lang = i18n.resolve_language(lang)
        whose = i18n.t("learner_pieces.yours" if name in self.mine else "learner_pieces.library", lang)
        return f"{name}{'' if lang == 'zh' else ' '}{whose}"

    def report(self, lang: str | None = None) -> str:
        lang = i18n.resolve_language(lang)
        sep = "、" if lang == "zh" else ", "
        return i18n.t(self.heading, lang) + sep.join(self.label(name, lang) for name in self.names)
