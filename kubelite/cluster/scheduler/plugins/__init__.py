"""The default profile's filter and score plugins, in kube-scheduler's order and with its default weights
(pkg/scheduler/apis/config/v1 default_plugins.go). A node's filters run in this order and stop at the first that
rejects it, so its reason is that plugin's.

Not included, because kubelite's simulated cluster has nothing for them to read: volume plugins
(VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone), DynamicResources, ImageLocality.
"""

from __future__ import annotations

from kubelite.cluster.scheduler.plugins.base import FilterPlugin, ScorePlugin
from kubelite.cluster.scheduler.plugins.interpodaffinity import InterPodAffinity
from kubelite.cluster.scheduler.plugins.nodeaffinity import NodeAffinity
from kubelite.cluster.scheduler.plugins.nodename import NodeName
from kubelite.cluster.scheduler.plugins.nodeports import NodePorts
from kubelite.cluster.scheduler.plugins.noderesources import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubelite.cluster.scheduler.plugins.nodeunschedulable import NodeUnschedulable
from kubelite.cluster.scheduler.plugins.podtopologyspread import PodTopologySpread
from kubelite.cluster.scheduler.plugins.tainttoleration import TaintToleration


def default_filters() -> list[FilterPlugin]:
    return [NodeUnschedulable(), NodeName(), TaintToleration(), NodeAffinity(), NodePorts(), NodeResourcesFit(),
            PodTopologySpread(), InterPodAffinity()]


def default_scores() -> list[ScorePlugin]:
    return [TaintToleration(), NodeAffinity(), NodeResourcesFit(), PodTopologySpread(), InterPodAffinity(),
            NodeResourcesBalancedAllocation()]


__all__ = [
    "InterPodAffinity",
    "NodeAffinity",
    "NodeName",
    "NodePorts",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "PodTopologySpread",
    "TaintToleration",
    "default_filters",
    "default_scores",
]
