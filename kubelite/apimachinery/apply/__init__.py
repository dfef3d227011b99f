"""Server-side apply and managedFields, as kube-apiserver does them (structured-merge-diff's model).

fieldpath: paths, path sets and FieldsV1; schema: the typed model of a kind; typed: field sets, compare,
merge and removal of values against it; updater: who owns what after an apply or an update; managed: the
managedFields entries; fieldmanager: kube's field manager of one endpoint, tying those together.
"""
