// Checks the manifests without a cluster: each document against the Kubernetes OpenAPI
// schema (kubernetes-models' validate(), the same JSON schemas kubectl's client-side
// validation uses), then the cross-references a schema cannot see: selectors that match
// the pod labels, the ingress's service and port, probes and resource limits on every
// container, a termination grace period longer than the dealer's drain, and the
// kustomization's file list.
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

for (const { file, doc } of docs) {
  const key = `${doc.apiVersion}/${doc.kind}`;
  const where = `${file} ${doc.kind}/${doc.metadata?.name}`;
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
  for (const c of pod.containers)
    for (const probe of ["readinessProbe", "livenessProbe"]) {
      const get = c[probe]?.httpGet;
      if (!get) fail(`container ${c.name}`, `no ${probe}`);
      else if (get.path !== "/healthz" || !portNames.has(get.port)) fail(`container ${c.name}`, `${probe} is not GET /healthz on a named port`);
    }
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
