"""Course-agnostic teaching machinery: figures, the widget base, quizzes, the checkers' machinery, fonts,
UI strings and fair measurements. Imports the library (`attention_core.core`), never a lab.
"""
