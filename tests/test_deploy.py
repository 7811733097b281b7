"""The deployment files: the Ray cluster-launcher config against the schema inside the installed
``ray`` package, and the KubeRay RayCluster manifest parsed and checked (no cloud is reachable here)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import ray
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def test_the_cluster_launcher_config_is_valid_for_the_installed_ray() -> None:
    schema = json.loads((pathlib.Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())
    config = yaml.safe_load((DEPLOY / "ray-cluster.yaml").read_text())
    jsonschema.validate(config, schema)
    assert any("scripts/ray_head" in command for command in config["head_start_ray_commands"])
    assert any("scripts/ray_worker $RAY_HEAD_IP:6379" in command for command in config["worker_start_ray_commands"])
    assert "~/.harness-db-url" in config["file_mounts"]  # the database URL travels as a file, not in here


def test_a_config_the_schema_refuses_is_refused() -> None:
    schema = json.loads((pathlib.Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())
    config = yaml.safe_load((DEPLOY / "ray-cluster.yaml").read_text())
    config["max_workers"] = "many"
    try:
        jsonschema.validate(config, schema)
    except jsonschema.ValidationError:
        return
    raise AssertionError("the schema accepted a non-integer max_workers")


def test_the_kuberay_manifest_runs_the_tested_ray_with_the_database_url_from_a_secret() -> None:
    (cluster,) = list(yaml.safe_load_all((DEPLOY / "kuberay-raycluster.yaml").read_text()))
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    assert cluster["spec"]["rayVersion"] == ray.__version__
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    database = next(e for e in head["env"] if e["name"] == "HARNESS_DB")
    assert database["valueFrom"]["secretKeyRef"] == {"name": "harness-db", "key": "url"}
    assert "value" not in database
    workers = cluster["spec"]["workerGroupSpecs"][0]
    assert workers["replicas"] >= 1 and workers["template"]["spec"]["containers"][0]["image"] == head["image"]
    assert f"rayproject/ray:{ray.__version__}-py311" in (DEPLOY / "Dockerfile").read_text()
