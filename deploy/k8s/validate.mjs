// Checks the manifests without a cluster: each document against the Kubernetes OpenAPI
// schema (kubernetes-models' validate(), the same JSON schemas kubectl's client-side
// validation uses), then the cross-references a schema cannot see: selectors that match
// the pod labels, the ingress's service and port, probes and resource limits on every
// container, a termination grace period longer than the dealer's drain, the dealers' shared
// record (the CloudNativePG Cluster it names, synchronous, TLS verified, no password in the
// URL), and the kustomization's file list. CloudNativePG publishes no kubernetes-models
// package, so its Cluster is checked against the fields of its v1 API this file uses.
//   node deploy/k8s/validate.mjs   (with kubernetes-models and js-yaml on NODE_PATH)
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// BP_NODE_MODULES: the node_modules folder holding kubernetes-models and js-yaml.
const nodeModules = process.env.BP_NODE_MODULES ?? path.join(process.cwd(), "node_modules");
const require = createRequire(path.join(nodeModules, "noop.js"));
const yaml = require("js-yaml");
const here = path.dirname(new URL(import.meta.url).pathname);

const models = {
  "v1/ConfigMap": "v1/ConfigMap.js",
  "v1/Service": "v1/Service.js",
  "apps/v1/StatefulSet": "apps/v1/StatefulSet.js",
  "networking.k8s.io/v1/Ingress": "networking.k8s.io/v1/Ingress.js",
  "policy/v1/PodDisruptionBudget": "policy/v1/PodDisruptionBudget.js",
};

const problems = [];
const fail = (where, what) => problems.push(`${where}: ${what}`);

const kustomization = yaml.load(fs.readFileSync(path.join(here, "kustomization.yaml"), "utf8"));
const docs = [];
for (const file of kustomization.resources) {
  if (!fs.existsSync(path.join(here, file))) {
    fail("kustomization.yaml", `lists ${file}, which does not exist`);
    continue;
  }
  for (const doc of yaml.loadAll(fs.readFileSync(path.join(here, file), "utf8"))) if (doc) docs.push({ file, doc });
}
const listed = new Set(kustomization.resources);
for (const f of fs.readdirSync(here))
  if (f.endsWith(".yaml") && f !== "kustomization.yaml" && !listed.has(f)) fail(f, "not listed in kustomization.yaml");

// postgresql.cnpg.io/v1 Cluster: the fields used here, with their types and bounds.
function checkCnpgCluster(where, doc) {
  const spec = doc.spec ?? {};
  const known = new Set(["instances", "minSyncReplicas", "maxSyncReplicas", "bootstrap", "storage", "resources", "postgresql"]);
  for (const k of Object.keys(spec)) if (!known.has(k)) fail(where, `schema: unknown field spec.${k}`);
  if (!Number.isInteger(spec.instances) || spec.instances < 1) fail(where, "schema: spec.instances must be an integer >= 1");
  for (const k of ["minSyncReplicas", "maxSyncReplicas"])
    if (spec[k] !== undefined && (!Number.isInteger(spec[k]) || spec[k] < 0)) fail(where, `schema: spec.${k} must be an integer >= 0`);
  if ((spec.minSyncReplicas ?? 0) > (spec.maxSyncReplicas ?? 0)) fail(where, "schema: minSyncReplicas > maxSyncReplicas");
  if (typeof spec.bootstrap?.initdb?.database !== "string" || typeof spec.bootstrap?.initdb?.owner !== "string")
    fail(where, "schema: spec.bootstrap.initdb needs database and owner");
  if (typeof spec.storage?.size !== "string") fail(where, "schema: spec.storage.size must be a quantity");
  for (const [k, v] of Object.entries(spec.postgresql?.parameters ?? {}))
    if (typeof v !== "string") fail(where, `schema: postgresql.parameters.${k} must be a string`);
}

for (const { file, doc } of docs) {
  const key = `${doc.apiVersion}/${doc.kind}`;
  const where = `${file} ${doc.kind}/${doc.metadata?.name}`;
  if (key === "postgresql.cnpg.io/v1/Cluster") {
    checkCnpgCluster(where, doc);
    continue;
  }
  if (!models[key]) {
    fail(where, `no schema known for ${key}`);
    continue;
  }
  const mod = await import(pathToFileURL(path.join(nodeModules, "kubernetes-models", models[key])).href);
  try {
    new mod[doc.kind](doc).validate();
  } catch (e) {
    fail(where, `schema: ${e.message}`);
  }
}

const byKind = (kind) => docs.filter((d) => d.doc.kind === kind).map((d) => d.doc);
const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const [sts] = byKind("StatefulSet");
if (!sts) fail("manifests", "no StatefulSet");
else {
  const podLabels = sts.spec.template.metadata.labels;
  if (!matches(sts.spec.selector.matchLabels, podLabels)) fail("StatefulSet", "selector does not match its pod labels");
  if (sts.spec.replicas < 2) fail("StatefulSet", "fewer than 2 replicas is not scale-out");
  const services = byKind("Service");
  if (!services.some((s) => s.metadata.name === sts.spec.serviceName && s.spec.clusterIP === "None"))
    fail("StatefulSet", `serviceName ${sts.spec.serviceName} is not a headless Service here`);
  for (const s of services)
    if (!matches(s.spec.selector, podLabels)) fail(`Service/${s.metadata.name}`, "selector matches no dealer pod");
  for (const p of byKind("PodDisruptionBudget"))
    if (!matches(p.spec.selector.matchLabels, podLabels)) fail(`PodDisruptionBudget/${p.metadata.name}`, "selector matches no dealer pod");
  if (byKind("PodDisruptionBudget").length === 0) fail("manifests", "no PodDisruptionBudget");

  const pod = sts.spec.template.spec;
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    if (!c.resources?.limits?.cpu || !c.resources?.limits?.memory) fail(`container ${c.name}`, "no cpu/memory limits");
    if (!c.resources?.requests) fail(`container ${c.name}`, "no resource requests");
  }
  const portNames = new Set(pod.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)));
  // Readiness follows the record (/readyz fails while it does); liveness only the process.
  for (const c of pod.containers)
    for (const [probe, want] of [["readinessProbe", "/readyz"], ["livenessProbe", "/healthz"]]) {
      const get = c[probe]?.httpGet;
      if (!get) fail(`container ${c.name}`, `no ${probe}`);
      else if (get.path !== want || !portNames.has(get.port)) fail(`container ${c.name}`, `${probe} is not GET ${want} on a named port`);
    }

  // The shared record: every replica names the same database, by the Cluster's read-write
  // Service, as its owner role, over verified TLS, with the password in a file; and each
  // replica has a name of its own (the pod's).
  const dealer = pod.containers.find((c) => c.name === "bp-dealer");
  const env = Object.fromEntries((dealer?.env ?? []).map((e) => [e.name, e]));
  const storeUrl = env.BP_DEALER_RECORD?.value;
  if (!storeUrl) fail("StatefulSet", "no BP_DEALER_RECORD: replicas would each keep a record of their own");
  else {
    const url = new URL(storeUrl);
    if (url.password) fail("StatefulSet", "BP_DEALER_RECORD carries a password (use BP_DEALER_RECORD_PASSWORD_FILE)");
    if (url.searchParams.get("sslmode") !== "verify-full") fail("StatefulSet", "the record is not reached with sslmode=verify-full");
    const [cluster] = byKind("Cluster");
    if (cluster) {
      if (url.hostname !== `${cluster.metadata.name}-rw`) fail("StatefulSet", `BP_DEALER_RECORD's host is not ${cluster.metadata.name}-rw`);
      if (url.pathname.slice(1) !== cluster.spec.bootstrap.initdb.database || url.username !== cluster.spec.bootstrap.initdb.owner)
        fail("StatefulSet", "BP_DEALER_RECORD's database or user is not the Cluster's");
      if ((cluster.spec.minSyncReplicas ?? 0) < 1) fail(`Cluster/${cluster.metadata.name}`, "no synchronous standby: an acknowledged record could be lost with the primary");
      if (cluster.spec.instances < 2) fail(`Cluster/${cluster.metadata.name}`, "one instance cannot fail over");
      for (const v of pod.volumes ?? [])
        if (v.secret && v.secret.secretName.startsWith("bp-records") &&
            ![`${cluster.metadata.name}-app`, `${cluster.metadata.name}-ca`].includes(v.secret.secretName))
          fail("StatefulSet", `volume ${v.name} names ${v.secret.secretName}, which the Cluster does not make`);
    }
  }
  if (!env.BP_DEALER_RECORD_PASSWORD_FILE) fail("StatefulSet", "no BP_DEALER_RECORD_PASSWORD_FILE");
  if (env.BP_DEALER_REPLICA_NAME?.valueFrom?.fieldRef?.fieldPath !== "metadata.name")
    fail("StatefulSet", "BP_DEALER_REPLICA_NAME is not the pod's name (replica names must be unique)");
  if ((sts.spec.volumeClaimTemplates ?? []).length) fail("StatefulSet", "a volume per replica: the record is shared");
  for (const c of [...(pod.initContainers ?? []), ...pod.containers])
    for (const m of c.volumeMounts ?? [])
      if (!(pod.volumes ?? []).some((v) => v.name === m.name) && !(sts.spec.volumeClaimTemplates ?? []).some((t) => t.metadata.name === m.name))
        fail(`container ${c.name}`, `mounts unknown volume ${m.name}`);

  // The drain must finish before the kubelet's SIGKILL.
  const conf = byKind("ConfigMap").find((c) => c.data?.["dealer.conf"])?.data["dealer.conf"] ?? "";
  const drainMs = Number((conf.match(/^\s*shutdown-grace-ms\s*=\s*(\d+)/m) ?? [])[1] ?? 10000);
  if (!(pod.terminationGracePeriodSeconds * 1000 > drainMs + 5000))
    fail("StatefulSet", `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} s does not cover the ${drainMs} ms drain`);

  for (const ing of byKind("Ingress")) {
    if (!ing.metadata.annotations?.["nginx.ingress.kubernetes.io/upstream-hash-by"])
      fail(`Ingress/${ing.metadata.name}`, "no consistent hashing: sessions would be split across replicas");
    // Behind the ingress the dealers see one address, so per-client limits must be here.
    for (const limit of ["limit-connections", "limit-rps"])
      if (!ing.metadata.annotations?.[`nginx.ingress.kubernetes.io/${limit}`])
        fail(`Ingress/${ing.metadata.name}`, `no ${limit}: the dealers cannot tell one client from another behind it`);
    for (const rule of ing.spec.rules ?? [])
      for (const p of rule.http?.paths ?? []) {
        const svc = services.find((s) => s.metadata.name === p.backend.service?.name);
        if (!svc) fail(`Ingress/${ing.metadata.name}`, `backend service ${p.backend.service?.name} is not defined`);
        else if (!svc.spec.ports.some((sp) => sp.name === p.backend.service.port.name || sp.port === p.backend.service.port.number))
          fail(`Ingress/${ing.metadata.name}`, "backend port is not a port of the service");
      }
  }
}

if (problems.length) {
  for (const p of problems) console.error(`error: ${p}`);
  process.exit(1);
}
console.log(`ok: ${docs.length} Kubernetes objects in ${listed.size} files valid against the schema and consistent`);
