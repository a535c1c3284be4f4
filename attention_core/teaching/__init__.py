"""Course-agnostic teaching machinery: figures, the widget base, quizzes, learner checks, fonts,
UI strings and fair measurements. Imports the library (`attention_core.core`), never a lab.
"""
