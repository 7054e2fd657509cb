"""Generated scripts and reports are byte-identical across the move of the presentation helpers (issue 24).

The digests were computed from the same inputs before ``lmdk/views.py``, ``report.py``, ``reproduce.py`` … moved
to :mod:`lmdk.present` (and passed unchanged after the move, commit d7aa48c); a change of what a script or report
says must update them on purpose. Updated since: the neighbouring relation (issue 25) adds ``relation`` to every
RunConfig and passes its options (Δ, sampler, range) in the temporal-loss and dummy scripts; the planner (issue 27)
adds ``target`` to every RunConfig; the reports were changed for printing (issue 28): sections, print CSS and the
script that draws each chart's printed picture; the dummies script prints each MAE's 95 % CI.
"""
from __future__ import annotations

import pytest

from present_golden import digest, outputs

BEFORE_THE_MOVE = {
    "schemes_script": "7475e7b1449443409488592fdeb7f303998a123937d8beecc6f31c1e09fe8c62",
    "schemes_script_file": "4c17ec9442455270472cc1e1a12be0ba82ff1cca08405eb52e1a57e9a1d9eaff",
    "tpl_script": "59a85cec47db4c4bf05d09e0bef7a8395931cebfb8ec3603da011f6f56133a41",
    "overview_script": "a3a537a644890a85035900df6e786234ffa6667bf41f0e21865ffa8f1dcdba60",
    "spatiotemporal_script": "8e522538343cfcd5fb216757ae42a8471aa83ebaacff080eadf67273a119cd7d",
    "dummies_script": "51e1d6b1a40c2d39517f379ae5cba16ee37fe8449cf569c9821dd3c4da2e0d7a",
    "html_report": "508695b466e14cd6f3d638a3789a945abe79b15741bf000800a140c4b68a3a8f",
    "overview_report": "2d72ee2c4c1622610a54da12ef123c5e2488cc6ce44f810f965c924d6f83260d",
    "spatiotemporal_report": "a8b4c20c51ed11e57972fe30b3f8e318d5829c38170e4ce27f974dfeb7b3af2f",
    "dummies_report": "49f6640663de60562252cfeee68be91ddcd6634a630f29e90a3732087f9e8bb1",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return outputs()


@pytest.mark.parametrize("name", sorted(BEFORE_THE_MOVE))
def test_generated_output_is_byte_identical(generated, name):
    assert digest(generated[name]) == BEFORE_THE_MOVE[name]
