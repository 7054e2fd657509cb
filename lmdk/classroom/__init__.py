"""A live class (issue 56): the lecturer starts a class, students answer anonymously, the room's distribution is
revealed beside the computed answer, and the answers live in a store that forgets them after a day.

* :mod:`~lmdk.classroom.codes`: class codes, student ids, the lecturer's token (``secrets``; only its SHA-256 kept);
* :mod:`~lmdk.classroom.model`: ``ClassState``, ``Tally``, the ``ClassStore`` interface and the answer rules;
* :mod:`~lmdk.classroom.sql`: the statements both stores run; :mod:`~lmdk.classroom.sqlite` (the default) and
  :mod:`~lmdk.classroom.postgres` (replicas) the backends; :mod:`~lmdk.classroom.store` picks one from the URL;
* :mod:`~lmdk.classroom.summary`: the lecturer's CSV and printable HTML summary.
"""
from __future__ import annotations

from lmdk.classroom.codes import check_code, check_student, new_student_id
from lmdk.classroom.model import Asked, ClassState, ClassStore, Tally
from lmdk.classroom.store import data_dir, default_url, open_store
from lmdk.classroom.summary import summary_csv, summary_html

__all__ = ["Asked", "ClassState", "ClassStore", "Tally", "check_code", "check_student", "data_dir", "default_url",
           "new_student_id", "open_store", "summary_csv", "summary_html"]
