"""teaching.learner_pieces: a piece is the learner's once passed, the library's until then (and again after a fail)."""
import functools

import pytest

from attention_core.teaching import i18n
from attention_core.teaching.learner_pieces import LearnerPieces

WORDS = {"test_only.pieces": {"en": "pieces: ", "zh": "零件："}}


def double(x):
    return 2 * x


def twice(x, pieces):
    """An assembled piece: runs the holder's `double`, the learner's where there is one."""
    return pieces.double(pieces.double(x))


class Toy(LearnerPieces):
    names = ("double", "twice")
    heading = "test_only.pieces"

    def library(self, name):
        return globals()[name]

    def stand_in(self, name):
        ref = self.library(name)
        return functools.partial(ref, pieces=self) if name == "twice" else ref


@pytest.fixture(autouse=True)
def words():
    i18n.register(WORDS)
    yield
    for key in WORDS:
        i18n.STRINGS.pop(key, None)


def test_the_library_stands_in_until_the_learners_piece_is_used_and_after_it_is_dropped():
    toy = Toy()
    assert toy.double is double and toy.which() == {"double": "library", "twice": "library"}
    assert toy.twice(1) == 4                                             # the library's assembly, on the holder
    toy.use("double", lambda x: 3 * x)
    assert toy.double(1) == 3 and toy.twice(1) == 9                      # the learner's piece, inside the assembly too
    assert toy.which()["double"] == "yours"
    toy.drop("double")
    assert toy.double is double and toy.which()["double"] == "library"
    toy.drop("double")                                                   # dropping what is not there: nothing


def test_the_librarys_own_function_is_not_counted_as_the_learners():
    toy = Toy()
    toy.use("double", double)
    assert toy.which()["double"] == "library" and toy.mine == {}


def test_unknown_names_are_refused_and_reports_speak_both_languages():
    toy = Toy()
    with pytest.raises(ValueError, match=r"expected one of \('double', 'twice'\), got 'triple'"):
        toy.use("triple", double)
    with pytest.raises(AttributeError):
        toy.triple                                                       # noqa: B018 -- the lookup is the test
    toy.use("double", lambda x: 3 * x)
    assert toy.report("en") == "pieces: double (yours), twice (the library's)"
    assert toy.report("zh") == "零件：double（你的）、twice（库里的）"
    with pytest.raises(ValueError, match="lang"):
        toy.report("fr")
