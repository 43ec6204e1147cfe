{{/* The release's base name: "<release>-restgate", or the release name when it already says restgate. */}}
{{- define "restgate.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains "restgate" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-restgate" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "restgate.selectorLabels" -}}
app.kubernetes.io/name: restgate
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .name }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}

{{- define "restgate.labels" -}}
{{ include "restgate.selectorLabels" . }}
app.kubernetes.io/part-of: restgate
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
The service registry (services.json at the repository root; files/services.json links to it) as a
list of entries, the gateway first. Each entry: name, dir, port, portEnv, urlEnv (routed by the
gateway), owns.database, secrets.
*/}}
{{- define "restgate.registry" -}}
{{- $registry := .Files.Get "files/services.json" | fromJson -}}
{{- if not $registry.gateway -}}
{{- fail "files/services.json (the service registry) is missing or has no gateway" -}}
{{- end -}}
{{- toJson (dict "entries" (prepend $registry.services $registry.gateway) "gateway" $registry.gateway.name) -}}
{{- end -}}

{{/* A component's settings: `defaults` with components.<name> merged over them. Args: root, name. */}}
{{- define "restgate.settings" -}}
{{- $own := index .root.Values.components .name | default dict -}}
{{- toJson (mergeOverwrite (deepCopy .root.Values.defaults) (deepCopy $own)) -}}
{{- end -}}

{{/*
A component's image: components.<name>.image.repository as it is, else
<image.registry>/<image.repositoryPrefix><name>; the tag from components.<name>.image.tag, image.tag
or the appVersion. Refuses "latest" and an empty tag. Args: root, name, settings.
*/}}
{{- define "restgate.image" -}}
{{- $image := .settings.image | default dict -}}
{{- $repository := $image.repository -}}
{{- if not $repository -}}
{{- $repository = printf "%s%s" .root.Values.image.repositoryPrefix .name -}}
{{- with .root.Values.image.registry }}{{ $repository = printf "%s/%s" (trimSuffix "/" .) $repository }}{{ end -}}
{{- end -}}
{{- $tag := toString ($image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- if or (eq $tag "latest") (eq $tag "") -}}
{{- fail (printf "%s: the image tag must name a version, not %q" .name $tag) -}}
{{- end -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}

{{/*
The secret keys a component receives: the registry's `secrets`, and MONGODB_URL when it owns a
database. Args: entry. Output: JSON list.
*/}}
{{- define "restgate.secretKeys" -}}
{{- $keys := .entry.secrets | default list -}}
{{- if and .entry.owns .entry.owns.database -}}
{{- $keys = append $keys "MONGODB_URL" -}}
{{- end -}}
{{- toJson (uniq $keys) -}}
{{- end -}}

{{/* The config keys a component reads (files/config-keys.yaml). Args: root, name. Output: JSON list. */}}
{{- define "restgate.configKeys" -}}
{{- $file := .root.Files.Get "files/config-keys.yaml" | fromYaml -}}
{{- $own := index ($file.components | default dict) .name | default ($file.resources | default list) -}}
{{- toJson (uniq (concat $file.every $own)) -}}
{{- end -}}

{{- define "restgate.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-secrets" (include "restgate.fullname" .)) -}}
{{- end -}}

{{/* The grace period: preStop's sleep, then the process's own bound (DRAIN_DELAY_MS + 2 x SHUTDOWN_TIMEOUT_MS + 6 s). Args: root, settings. */}}
{{- define "restgate.gracePeriodSeconds" -}}
{{- $shutdownMs := .root.Values.config.SHUTDOWN_TIMEOUT_MS | default "10000" | int -}}
{{- $drainMs := .root.Values.config.DRAIN_DELAY_MS | default "0" | int -}}
{{- add (.settings.preStopSleepSeconds | default 0 | int) (div (add $drainMs (mul 2 $shutdownMs) 6999) 1000) -}}
{{- end -}}
