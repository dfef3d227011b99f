"""PodTemplates: the template's pod spec gets pod-spec defaults and is validated like any template."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.pods import default_pod_spec
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import POD_TEMPLATE_TABLE
from kubelite.registry.validation.pods import validate_pod_template
from kubelite.registry.validation.quantities import decode_quantities


class PodTemplateStrategy(Strategy):
    """PodTemplates: the template's pod spec gets pod-spec defaults and is validated like any template;
    DELETE answers with the object, as kube's does."""

    tracks_generation = False
    return_deleted_object = True

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        template = obj.get("template")
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            default_pod_spec(template["spec"])

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_pod_template(obj)


REGISTRATION = stored("", "podtemplates", PodTemplateStrategy, table=POD_TEMPLATE_TABLE)
