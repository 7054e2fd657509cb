"""Generated scripts and reports are byte-identical across the move of the presentation helpers (issue 24).

The digests were computed from the same inputs before ``lmdk/views.py``, ``report.py``, ``reproduce.py`` … moved
to :mod:`lmdk.present` (and passed unchanged after the move, commit d7aa48c); a change of what a script or report
says must update them on purpose. Updated since: the neighbouring relation (issue 25) adds ``relation`` to every
RunConfig and passes its options (Δ, sampler, range) in the temporal-loss and dummy scripts; the planner (issue 27)
adds ``target`` to every RunConfig; the reports were changed for printing (issue 28): sections, print CSS and the
script that draws each chart's printed picture; the dummies script prints each MAE's 95 % CI;
every RunConfig records its ``view`` (a window / aggregation of the data) and scripts take ``config.view_of(full)``;
the temporal-loss and dummy scripts name what ε protects as ``protects=lmdk.relation.…`` (issue 32) instead of
``**config.relation_options()`` (same draws for the same seed); the reports put the headline, the data set and the
settings first, charts before tables, and break the printed page only before the results (issue 35); the scripts
import ``RunConfig`` from ``lmdk.exports.runconfig`` (issue 51: exports left ``lmdk.data``; nothing else changed).
"""
from __future__ import annotations

import pytest
from present_golden import digest, outputs

BEFORE_THE_MOVE = {
    "schemes_script": "6000f3789579c2c5581fe1890f0bbf8d3064b48c8303c622c0c7cf274b788af8",
    "schemes_script_file": "63b1e4881e8360acda90e0f1cf8f9954903f684b619ef31c9d2bc16320a9a600",
    "tpl_script": "6430a410feb9de8369b5cf5b7a77f8b41fca08d387e0d64668959f1f8ebd965c",
    "overview_script": "a3a537a644890a85035900df6e786234ffa6667bf41f0e21865ffa8f1dcdba60",
    "spatiotemporal_script": "8e522538343cfcd5fb216757ae42a8471aa83ebaacff080eadf67273a119cd7d",
    "dummies_script": "42a8ee994308496fa9a8729a57e304c5085aa3f3a32b53f592ee9c0520bb86a4",
    "html_report": "629e8b3dce815599e4186f9cc77a9c1a73d9b597fa49504af4cbab9932778636",
    "overview_report": "d06c0dca825dd67907b5dd794625fb9264e3116af97759fe5907d84665f4de76",
    "spatiotemporal_report": "cde3b0179c4f17c3d8c4d513bb7d14d76a841bb6850cf30e57a454b6a60649a9",
    "dummies_report": "6d23ed081856d9e8cb94f24a368fe54d92cf33999fc5d5b1284c6116a8b66884",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return outputs()


@pytest.mark.parametrize("name", sorted(BEFORE_THE_MOVE))
def test_generated_output_is_byte_identical(generated, name):
    assert digest(generated[name]) == BEFORE_THE_MOVE[name]
