// Checks the manifests of deploy/k8s: every document against the Kubernetes API's
// JSON schemas (kubernetes-models), then what makes them work together for hopmapd
// (selectors that match, gRPC probes on the served port, resource requests, the
// catalog ConfigMap mounted where --config points). With --catalog-out FILE, writes
// the catalog the Deployment's --config names, so a test can start hopmapd on it.
//
// Usage: node validate.mjs DIR [--catalog-out FILE]   (after npm ci in this folder)
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";

const models = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
};

const args = process.argv.slice(2);
const dir = args[0];
const catalogOut = args.indexOf("--catalog-out") >= 0 ? args[args.indexOf("--catalog-out") + 1] : "";
if (!dir) {
  console.error("usage: node validate.mjs DIR [--catalog-out FILE]");
  process.exit(2);
}

const problems = [];
const objects = [];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort()) {
  const where = path.join(dir, file);
  const docs = YAML.parseAllDocuments(fs.readFileSync(where, "utf8"));
  docs.forEach((doc, index) => {
    const at = `${where} (document ${index + 1})`;
    if (doc.errors.length > 0) {
      problems.push(`${at}: YAML: ${doc.errors[0].message}`);
      return;
    }
    const object = doc.toJS();
    if (object === null) return;
    const key = `${object.apiVersion}/${object.kind}`;
    const Model = models[key];
    if (!Model) {
      problems.push(`${at}: ${key} is not one of ${Object.keys(models).join(", ")}`);
      return;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      const details = (error.errors || [])
        .map((e) => `${e.instancePath || "/"} ${e.message}`)
        .join("; ");
      problems.push(`${at}: ${key} ${object.metadata?.name}: ${details || error.message}`);
      return;
    }
    objects.push({ at, key, object });
  });
}

const one = (key) => {
  const found = objects.filter((o) => o.key === key);
  if (found.length !== 1) problems.push(`${dir}: expected one ${key}, found ${found.length}`);
  return found[0];
};
const matches = (selector, labels) =>
  Object.entries(selector || {}).every(([k, v]) => labels?.[k] === v) &&
  Object.keys(selector || {}).length > 0;

const deployment = one("apps/v1/Deployment");
const service = one("v1/Service");
const pdb = one("policy/v1/PodDisruptionBudget");
if (deployment) {
  const d = deployment.object;
  const pod = d.spec.template;
  const labels = pod.metadata?.labels;
  if (!matches(d.spec.selector.matchLabels, labels)) {
    problems.push(`${deployment.at}: spec.selector does not match the pod template's labels`);
  }
  if (service && !matches(service.object.spec.selector, labels)) {
    problems.push(`${service.at}: the Service's selector does not select the Deployment's pods`);
  }
  if (service && service.object.spec.clusterIP !== "None") {
    problems.push(`${service.at}: clusterIP must be None (headless: clients balance over the replicas)`);
  }
  if (pdb && !matches(pdb.object.spec.selector?.matchLabels, labels)) {
    problems.push(`${pdb.at}: the PodDisruptionBudget does not select the Deployment's pods`);
  }
  const containers = pod.spec.containers.filter((c) => c.name === "hopmapd");
  if (containers.length !== 1) problems.push(`${deployment.at}: no container named hopmapd`);
  for (const c of containers) {
    const flag = (name) => {
      const prefix = `--${name}=`;
      const a = (c.args || []).find((x) => x.startsWith(prefix));
      return a === undefined ? undefined : a.slice(prefix.length);
    };
    const listen = flag("listen");
    const port = Number((listen || "").split(":").pop());
    const grpcPort = (c.ports || []).find((p) => p.name === "grpc")?.containerPort;
    if (!listen || port !== grpcPort) {
      problems.push(`${deployment.at}: --listen=${listen} is not the port named grpc (${grpcPort})`);
    }
    if (service) {
      const sp = service.object.spec.ports.find((p) => p.name === "grpc");
      if (!sp || (sp.targetPort !== "grpc" && sp.targetPort !== grpcPort)) {
        problems.push(`${service.at}: the grpc port does not target the container's grpc port`);
      }
    }
    for (const probe of ["readinessProbe", "livenessProbe"]) {
      if (c[probe]?.grpc?.port !== grpcPort) {
        problems.push(`${deployment.at}: ${probe} must be a grpc probe on port ${grpcPort} (hopmapd serves grpc.health.v1)`);
      }
    }
    const requests = c.resources?.requests || {};
    if (!requests.cpu || !requests.memory) {
      problems.push(`${deployment.at}: resources.requests needs cpu and memory`);
    }
    const threads = Number(flag("threads"));
    const cpu = String(requests.cpu || "0");
    const cores = cpu.endsWith("m") ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
    if (!(threads >= 1) || threads > cores) {
      problems.push(`${deployment.at}: --threads=${flag("threads")} should be set and within the cpu request (${cpu})`);
    }
    const catalogUrl = flag("catalog");
    if (!catalogUrl || !/^etcd:\/\/[^/]+:\d+\/[A-Za-z0-9._\/-]+$/.test(catalogUrl)) {
      problems.push(`${deployment.at}: --catalog=${catalogUrl} is not etcd://HOST:PORT/PREFIX`);
    }
    const config = flag("config");
    const mount = (c.volumeMounts || []).find((m) => config && config.startsWith(m.mountPath + "/"));
    const volume = mount && (pod.spec.volumes || []).find((v) => v.name === mount.name);
    const mapName = volume?.configMap?.name;
    const map = objects.find((o) => o.key === "v1/ConfigMap" && o.object.metadata.name === mapName);
    const fileName = config && mount ? config.slice(mount.mountPath.length + 1) : "";
    const text = map?.object.data?.[fileName];
    if (!text) {
      problems.push(`${deployment.at}: --config=${config} is not a key of a ConfigMap mounted there`);
    } else {
      try {
        const catalog = JSON.parse(text);
        if (!Array.isArray(catalog.machines)) throw new Error("no machines array");
        if (catalogOut) fs.writeFileSync(catalogOut, text);
      } catch (error) {
        problems.push(`${map.at}: ${fileName} is not a CatalogConfig in JSON: ${error.message}`);
      }
    }
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`k8s: ${p}`);
  process.exit(1);
}
console.log(`k8s: ${objects.length} objects valid (${objects.map((o) => `${o.key} ${o.object.metadata.name}`).join(", ")})`);
