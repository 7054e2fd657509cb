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
import ``RunConfig`` from ``lmdk.exports.runconfig`` (issue 51: exports left ``lmdk.data``; nothing else changed);
lmdk's version is 0.3.0, as the CHANGELOG says (issue 55: the version line of each script and report, nothing else).
"""
from __future__ import annotations

import pytest
from present_golden import digest, outputs

BEFORE_THE_MOVE = {
    "schemes_script": "c5f184ab3e7c270f559ca8368c80ad1275b381c4b73b6b96a5e08c1260c3dba0",
    "schemes_script_file": "1442338b05bf5d4867717adcd8501ac99efa56e6253be9e63bbfe353b3433583",
    "tpl_script": "21e88e5500de64f22de2ab545b2163fe91a9189b1d27f2e3bfb16bca6eb01036",
    "overview_script": "b3f87ac7f063ba356e8b602e6b57934c3940a391bebb1aafc4aa3411af8a702b",
    "spatiotemporal_script": "9e6a37eb2dadea6db757709cf31a13a3b4276486133309abf923e192e5607cad",
    "dummies_script": "6f0d0ba0cb187e6230670ccc2ed8ed448ddd4f41d8fb3cf5818badce74ed6be6",
    "html_report": "85a935d37422924ce99d44b1d8bea0063708db31c1cbedc535b171d3d7ef8268",
    "overview_report": "fb397352d5d79a5fc71fa08638af47db3d1b105edf9adb836495ae9ad9a9a602",
    "spatiotemporal_report": "32b7a64bc71e49e15d4f79027e91e24eade7d46a612a16847b8589eb773aac4d",
    "dummies_report": "2c3fe2b19823961d608e44511d3517cd214ae251fc2aa06883ac6f41c4402c5f",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return outputs()


@pytest.mark.parametrize("name", sorted(BEFORE_THE_MOVE))
def test_generated_output_is_byte_identical(generated, name):
    assert digest(generated[name]) == BEFORE_THE_MOVE[name]
