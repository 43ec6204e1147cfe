# restgate's policy for its rendered chart, checked by conftest (npm run test:chart):
#
#   helm template restgate deploy/helm/restgate | <to JSON: {"kind": "List", "items": [...]}> > render.json
#   conftest test --policy deploy/helm/policy --data <{"restgate": {"registry": services.json}}> render.json
#
# The input is the whole release as one List, so that rules can look across objects (a Deployment
# and its PodDisruptionBudget, its NetworkPolicies, its Service). data.restgate.registry is
# services.json: the gateway is the one component that may be reached from outside.
# Every message starts with the rule's id; test/chart/policy.test.ts breaks each rule on purpose.
package main

import rego.v1

objects := input.items

kinds(kind) := [o | some o in objects; o.kind == kind]

gateway := data.restgate.registry.gateway.name

component(o) := o.metadata.labels["app.kubernetes.io/component"]

pod_spec(d) := d.spec.template.spec

containers(d) := array.concat(object.get(pod_spec(d), "initContainers", []), pod_spec(d).containers)

pod_labels(d) := d.spec.template.metadata.labels

# A matchLabels selector (the chart uses no matchExpressions) that picks these labels.
selects(selector, labels) if {
	count(object.get(selector, "matchLabels", {})) > 0
	every k, v in selector.matchLabels {
		labels[k] == v
	}
}

name(o) := sprintf("%s %s", [o.kind, o.metadata.name])

# --- Probes ----------------------------------------------------------------------------------

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	object.get(c, ["readinessProbe", "httpGet", "path"], "") != "/ready"
	msg := sprintf("RG-READINESS: %s: container %s has no readiness probe on /ready", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	object.get(c, ["livenessProbe", "httpGet", "path"], "") != "/health"
	msg := sprintf("RG-LIVENESS: %s: container %s has no liveness probe on /health", [name(d), c.name])
}

# --- Resources -------------------------------------------------------------------------------

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	some kind in ["requests", "limits"]
	some resource in ["cpu", "memory"]
	not c.resources[kind][resource]
	msg := sprintf("RG-RESOURCES: %s: container %s sets no %s %s", [name(d), c.name, resource, kind])
}

# --- Rollouts and disruptions ----------------------------------------------------------------

deny contains msg if {
	some d in kinds("Deployment")
	not rolls_without_loss(d)
	msg := sprintf("RG-ROLLOUT: %s: rolling updates must keep every replica serving (RollingUpdate, maxUnavailable: 0)", [name(d)])
}

rolls_without_loss(d) if {
	d.spec.strategy.type == "RollingUpdate"
	d.spec.strategy.rollingUpdate.maxUnavailable == 0
}

deny contains msg if {
	some d in kinds("Deployment")
	not has_pdb(d)
	msg := sprintf("RG-PDB: %s: no PodDisruptionBudget selects its pods", [name(d)])
}

has_pdb(d) if {
	some pdb in kinds("PodDisruptionBudget")
	selects(pdb.spec.selector, pod_labels(d))
}

deny contains msg if {
	some d in kinds("Deployment")
	count(object.get(pod_spec(d), "topologySpreadConstraints", [])) == 0
	msg := sprintf("RG-SPREAD: %s: no topologySpreadConstraints (replicas may share a node)", [name(d)])
}

deny contains msg if {
	some hpa in kinds("HorizontalPodAutoscaler")
	target := hpa.spec.scaleTargetRef
	not deployment_named(target.name)
	msg := sprintf("RG-HPA: %s: scales %s, which the release does not have", [name(hpa), target.name])
}

deployment_named(n) if {
	some d in kinds("Deployment")
	d.metadata.name == n
}

# The drain: preStop's wait, then the process's own bound (DRAIN_DELAY_MS + 2 x SHUTDOWN_TIMEOUT_MS + 6 s).
deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	needed := object.get(c, ["lifecycle", "preStop", "sleep", "seconds"], 0) + ceil(((drain_ms(c) + (2 * shutdown_ms(c))) + 6000) / 1000)
	object.get(pod_spec(d), "terminationGracePeriodSeconds", 30) < needed
	msg := sprintf("RG-GRACE: %s: terminationGracePeriodSeconds %v is shorter than the drain (%v s)", [name(d), object.get(pod_spec(d), "terminationGracePeriodSeconds", 30), needed])
}

shutdown_ms(c) := to_number(v) if {
	some e in object.get(c, "env", [])
	e.name == "SHUTDOWN_TIMEOUT_MS"
	v := e.value
} else := 10000

drain_ms(c) := to_number(v) if {
	some e in object.get(c, "env", [])
	e.name == "DRAIN_DELAY_MS"
	v := e.value
} else := 0

# --- Security context ------------------------------------------------------------------------

# Container settings win over the pod's.
effective(d, c, key) := c.securityContext[key]

effective(d, c, key) := pod_spec(d).securityContext[key] if not has_key(object.get(c, "securityContext", {}), key)

has_key(o, k) if _ = o[k]

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	not non_root(d, c)
	msg := sprintf("RG-NONROOT: %s: container %s may run as root (runAsNonRoot is not true)", [name(d), c.name])
}

# (A helper rule: `not f(x) == true` on a function call is never true in Rego when f is undefined.)
non_root(d, c) if effective(d, c, "runAsNonRoot") == true

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	effective(d, c, "runAsUser") == 0
	msg := sprintf("RG-NONROOT: %s: container %s runs as user 0", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	not c.securityContext.readOnlyRootFilesystem == true
	msg := sprintf("RG-READONLY-FS: %s: container %s has a writable root file system", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	not "ALL" in object.get(c, ["securityContext", "capabilities", "drop"], [])
	msg := sprintf("RG-CAPABILITIES: %s: container %s does not drop ALL capabilities", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	count(object.get(c, ["securityContext", "capabilities", "add"], [])) > 0
	msg := sprintf("RG-CAPABILITIES: %s: container %s adds capabilities", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	not c.securityContext.allowPrivilegeEscalation == false
	msg := sprintf("RG-PRIVILEGE: %s: container %s allows privilege escalation", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	c.securityContext.privileged == true
	msg := sprintf("RG-PRIVILEGE: %s: container %s is privileged", [name(d), c.name])
}

deny contains msg if {
	some d in kinds("Deployment")
	not token_off(d)
	msg := sprintf("RG-TOKEN: %s: mounts a service account token it never uses", [name(d)])
}

token_off(d) if pod_spec(d).automountServiceAccountToken == false

# --- Images ----------------------------------------------------------------------------------

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	not pinned(c.image)
	msg := sprintf("RG-IMAGE: %s: container %s image %s names no version (or latest)", [name(d), c.name, c.image])
}

pinned(image) if contains(image, "@sha256:")

pinned(image) if {
	parts := split(image, "/")
	last := parts[count(parts) - 1]
	contains(last, ":")
	tag := split(last, ":")[1]
	tag != ""
	tag != "latest"
}

# --- Secrets ---------------------------------------------------------------------------------

deny contains msg if {
	some s in kinds("Secret")
	msg := sprintf("RG-SECRETS: %s: the chart renders a Secret; secrets come from one the user creates", [name(s)])
}

deny contains msg if {
	some d in kinds("Deployment")
	some c in containers(d)
	some e in object.get(c, "env", [])
	secret_name(e.name)
	not e.valueFrom.secretKeyRef
	msg := sprintf("RG-SECRETS: %s: %s of container %s is not taken from a Secret", [name(d), e.name, c.name])
}

secret_name(n) if regex.match(`(SECRET|PASSWORD|PASS|TOKEN|PRIVATE_KEY|(^|_)KEY)$`, n)

secret_name(n) if n in {"MONGODB_URL", "AMQP_URL", "REDIS_URL", "SMTP_URL"}

# --- Exposure --------------------------------------------------------------------------------

deny contains msg if {
	some s in kinds("Service")
	component(s) != gateway
	object.get(s.spec, "type", "ClusterIP") != "ClusterIP"
	msg := sprintf("RG-EXPOSURE: %s: only the gateway's Service may be reached from outside (type %s)", [name(s), s.spec.type])
}

deny contains msg if {
	some ing in kinds("Ingress")
	some rule in ing.spec.rules
	some p in rule.http.paths
	not gateway_service(p.backend.service.name)
	msg := sprintf("RG-EXPOSURE: %s: routes to %s, not the gateway's Service", [name(ing), p.backend.service.name])
}

gateway_service(n) if {
	some s in kinds("Service")
	s.metadata.name == n
	component(s) == gateway
}

# --- Network policies ------------------------------------------------------------------------

policies_for(d, type) := [p |
	some p in kinds("NetworkPolicy")
	type in p.spec.policyTypes
	selects(p.spec.podSelector, pod_labels(d))
]

deny contains msg if {
	some d in kinds("Deployment")
	some type in ["Ingress", "Egress"]
	count(policies_for(d, type)) == 0
	msg := sprintf("RG-NETPOL: %s: no NetworkPolicy restricts its %s traffic", [name(d), lower(type)])
}

# Only the gateway reaches the services: every ingress rule of a service's policies comes from the gateway's pods.
deny contains msg if {
	some d in kinds("Deployment")
	component(d) != gateway
	some p in policies_for(d, "Ingress")
	some rule in object.get(p.spec, "ingress", [])
	not from_gateway_only(rule)
	msg := sprintf("RG-NETPOL: %s: %s lets in more than the gateway", [name(d), name(p)])
}

from_gateway_only(rule) if {
	count(object.get(rule, "from", [])) > 0
	every peer in rule.from {
		not peer.namespaceSelector
		not peer.ipBlock
		peer.podSelector.matchLabels["app.kubernetes.io/component"] == gateway
	}
}

# Only the services reach the databases: the gateway's egress goes to DNS, the services it routes
# to, Redis and the broker (realtime consumes the change events); never to MongoDB.
deny contains msg if {
	some d in kinds("Deployment")
	component(d) == gateway
	some p in policies_for(d, "Egress")
	some rule in object.get(p.spec, "egress", [])
	some port in object.get(rule, "ports", [])
	port.port == 27017
	msg := sprintf("RG-NETPOL: %s: %s lets the gateway reach the database (port %v)", [name(d), name(p), port.port])
}

# An egress rule with no ports opens everything.
deny contains msg if {
	some d in kinds("Deployment")
	some p in policies_for(d, "Egress")
	some rule in object.get(p.spec, "egress", [])
	count(object.get(rule, "ports", [])) == 0
	msg := sprintf("RG-NETPOL: %s: %s allows egress on every port", [name(d), name(p)])
}
