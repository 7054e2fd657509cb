"""Regenerate the example files the guides and the ``lmdk … --help`` examples name (run from anywhere:
``python docs/examples/make_examples.py``). Every file is small and made from the bundled samples: the HUE
readings (CC BY 4.0, see NOTICE.md) and lmdk's synthetic taxi and contact generators (fixed seeds)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

import lmdk
from lmdk.exports.runconfig import RunConfig
from lmdk.landmarks import parse_rule

HERE = Path(__file__).resolve().parent
HOURS, USERS, USER_HOURS = 720, 3, 240  # meter.csv: 30 days; fleet: 3 homes × 10 days
POLICY = {"landmarks": "calendar:mon-fri@18:00-22:00", "scheme": "adaptive", "epsilon": 1.0}


def meter() -> pd.DataFrame:
    """The first 720 hourly readings of the bundled HUE sample (timestamp, value in kWh)."""
    hue = lmdk.sample("hue")
    return pd.DataFrame({"timestamp": hue.timestamps[:HOURS], "value": hue.values[:HOURS]})


def fleet() -> pd.DataFrame:
    """Three homes of 240 hours each, cut from the HUE sample (user, timestamp, value)."""
    hue = lmdk.sample("hue")
    cut = [slice(USER_HOURS * u, USER_HOURS * (u + 1)) for u in range(USERS)]
    return pd.concat([pd.DataFrame({"user": f"home{u}", "timestamp": hue.timestamps[part], "value": hue.values[part]})
                      for u, part in enumerate(cut)], ignore_index=True)


def contacts() -> pd.DataFrame:
    """Three people's contact logs from the synthetic contact generator (user, t in seconds, contact)."""
    parts = []
    for u in range(USERS):
        series = lmdk.sample("contacts", n=300, seed=u)
        seconds = (series.timestamps - series.timestamps[0]).total_seconds().astype(int)
        parts.append(pd.DataFrame({"user": f"pupil{u}", "t": seconds, "contact": series.frame["contact"].to_numpy()}))
    return pd.concat(parts, ignore_index=True)


def trace_plt() -> str:
    """A GeoLife-style .plt trajectory (200 fixes) from the synthetic taxi generator."""
    taxi = lmdk.sample("taxi", n=200, seed=0)
    lines = ["Geolife trajectory", "WGS 84", "Altitude is in Feet", "Reserved 3", "0,2,255,My Track,0,0,2,8421376",
             "0"]
    for t, (lat, lon) in zip(taxi.timestamps, taxi.frame[["lat", "lon"]].to_numpy(), strict=True):
        days = (t - pd.Timestamp("1899-12-30")) / pd.Timedelta(days=1)
        lines.append(f"{lat:.6f},{lon:.6f},0,492,{days:.10f},{t:%Y-%m-%d},{t:%H:%M:%S}")
    return "\n".join(lines) + "\n"


def runconfig(meter_csv: Path, frame: pd.DataFrame) -> str:
    """A RunConfig for meter.csv: adaptive, ε = 1, the evening windows declared, values in [0, 25] kWh, and the
    error one accepts (MAE 0.5 kWh, for lmdk plan)."""
    series = lmdk.load_series(str(meter_csv))
    landmarks = parse_rule("calendar:daily@18:00-22:00").indices(series, None)
    return RunConfig(data="sha256:" + hashlib.sha256(meter_csv.read_bytes()).hexdigest(), events=len(frame),
                     landmarks=tuple(int(i) for i in landmarks), schemes=("adaptive",), mechanism="laplace",
                     epsilon=1.0, relation=lmdk.relation.public_range(0, 25, "kWh").to_dict(),
                     target={"error": 0.5, "at": "all"}, landmark_origin="declared").to_json()


def main(folder: Path = HERE) -> None:
    """Write every example file into ``folder`` (default: next to this script)."""
    frame = meter()
    frame.to_csv(folder / "meter.csv", index=False)
    fleet().to_csv(folder / "fleet.csv", index=False)
    typed = fleet()
    typed["feeder"] = np.where(typed["user"] == "home2", "south", "north")
    typed.to_parquet(folder / "fleet.parquet", index=False)
    contacts().to_csv(folder / "contacts.csv", index=False)
    (folder / "trace.plt").write_text(trace_plt(), encoding="utf-8")
    (folder / "policy.json").write_text(json.dumps(POLICY, indent=2) + "\n", encoding="utf-8")
    (folder / "default.json").write_text(json.dumps({**POLICY, "landmarks": "calendar:sun@09:00-12:00"}, indent=2)
                                       + "\n", encoding="utf-8")
    (folder / "policies.csv").write_text("user,landmarks,epsilon,scheme\n"
                                         "home0,calendar:mon-fri@18:00-22:00,1.0,adaptive\n"
                                         "home1,calendar:sat-sun@08:00-12:00,0.5,skip\n", encoding="utf-8")
    (folder / "landmarks.csv").write_text("index\n" + "\n".join(str(i) for i in range(18, HOURS, 24)) + "\n",
                                        encoding="utf-8")
    (folder / "matrix.csv").write_text("0.9,0.1\n0.2,0.8\n", encoding="utf-8")
    (folder / "runconfig.json").write_text(runconfig(folder / "meter.csv", frame), encoding="utf-8")


if __name__ == "__main__":
    main()
