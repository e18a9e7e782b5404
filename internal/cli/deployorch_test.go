package cli

// The orchestrated deployments: compose.yaml and deploy/kubernetes/.

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/switchyard-gw/switchyard/internal/config"
)

func TestDeployCompose(t *testing.T) {
	img, _ := dockerImage(t)
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(readDeploy(t, "compose.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	services, _ := doc["services"].(map[string]any)
	var replicas []string
	var cfg *config.Config
	for _, name := range sortedKeys(services) {
		svc := services[name]
		if dig(svc, "build", "dockerfile") != "deploy/Dockerfile" {
			continue
		}
		c := composeLaunch(t, name, svc, img).check(t)
		if args := strs(t, dig(svc, "command")); args[0] == "serve" {
			replicas, cfg = append(replicas, name), c
			checkComposeReplica(t, name, svc, c, services)
		}
	}
	if len(replicas) != 3 {
		t.Fatalf("compose.yaml: serve replicas %q, want 3", replicas)
	}
	var want []string
	for _, r := range replicas {
		want = append(want, net.JoinHostPort(r, listenPort(t, cfg)))
	}
	if got := nginxUpstreams(readDeploy(t, "nginx.conf")); !slices.Equal(got, want) {
		t.Errorf("nginx.conf upstream servers %q, want the compose replicas %q", got, want)
	}
	for _, r := range replicas {
		if dig(services, "lb", "depends_on", r, "condition") != "service_healthy" {
			t.Errorf("compose.yaml: lb does not wait for %s to be healthy", r)
		}
	}
	for _, dep := range []string{cfg.Database.URL, cfg.Redis.URL} {
		u, err := url.Parse(dep)
		if err != nil || services[u.Hostname()] == nil {
			t.Errorf("compose.yaml: the replicas use %s, whose host is not a service", dep)
		}
	}
}

// composeLaunch is how a compose service runs the image: its command,
// the image's environment under the service's (interpolated), and the
// files it mounts from deploy/.
func composeLaunch(t *testing.T, name string, svc any, img image) launch {
	t.Helper()
	env := map[string]string{}
	for k, v := range img.env {
		env[k] = v
	}
	vars, _ := dig(svc, "environment").(map[string]any)
	for k, v := range vars {
		env[k] = interpolate(fmt.Sprint(v))
	}
	files := map[string]string{}
	for _, v := range strs(t, dig(svc, "volumes")) {
		parts := strings.Split(v, ":")
		if strings.HasPrefix(parts[0], "./") {
			files[parts[1]] = filepath.Join(deployDir, parts[0])
		}
	}
	return launch{name: "compose.yaml " + name, args: strs(t, dig(svc, "command")), env: env, files: files}
}

func checkComposeReplica(t *testing.T, name string, svc any, cfg *config.Config, services map[string]any) {
	t.Helper()
	health := strs(t, dig(svc, "healthcheck", "test"))
	if len(health) < 3 || health[0] != "CMD" || health[1] != "/switchyard" {
		t.Fatalf("compose.yaml %s: healthcheck %q, want [CMD, /switchyard, healthcheck]", name, health)
	}
	if err := checkArgs(health[2:]); err != nil {
		t.Errorf("compose.yaml %s: healthcheck: %v", name, err)
	}
	u, _ := url.Parse(readyURL(cfg))
	checkProbe(t, "compose.yaml "+name, u.Path)
	grace, err := time.ParseDuration(fmt.Sprint(dig(svc, "stop_grace_period")))
	if err != nil {
		t.Fatalf("compose.yaml %s: stop_grace_period: %v", name, err)
	}
	checkStopTimeout(t, "compose.yaml "+name+" stop_grace_period", grace, cfg)
	deps, _ := dig(svc, "depends_on").(map[string]any)
	for dep := range deps {
		if services[dep] == nil {
			t.Errorf("compose.yaml %s depends on %s, which is not a service", name, dep)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// kubeObjects reads the resources kustomization.yaml lists, by kind.
func kubeObjects(t *testing.T) map[string]map[string]any {
	t.Helper()
	var k map[string]any
	if err := yaml.Unmarshal([]byte(readDeploy(t, "kubernetes/kustomization.yaml")), &k); err != nil {
		t.Fatal(err)
	}
	objs := map[string]map[string]any{}
	for _, file := range strs(t, k["resources"]) {
		for _, doc := range yamlDocs(t, readDeploy(t, filepath.Join("kubernetes", file))) {
			kind := fmt.Sprint(doc["kind"])
			if objs[kind] != nil {
				t.Fatalf("kubernetes: two %s objects", kind)
			}
			objs[kind] = doc
		}
	}
	for _, kind := range []string{"Deployment", "Service", "ConfigMap", "PodDisruptionBudget"} {
		if objs[kind] == nil {
			t.Fatalf("kubernetes: no %s in kustomization.yaml's resources", kind)
		}
	}
	return objs
}

func TestDeployKubernetes(t *testing.T) {
	img, _ := dockerImage(t)
	objs := kubeObjects(t)
	dep := objs["Deployment"]
	pod := dig(dep, "spec", "template", "spec")
	ctr := dig(pod, "containers", 0)
	cfg := kubeLaunch(t, pod, ctr, objs["ConfigMap"], img).check(t)
	if n := dig(dep, "spec", "replicas"); n != 3 {
		t.Errorf("Deployment replicas %v, want 3", n)
	}
	if cfg.Limits.Replicas != 3 {
		t.Errorf("limits.replicas %d, want the Deployment's 3", cfg.Limits.Replicas)
	}
	port := fmt.Sprint(dig(ctr, "ports", 0, "containerPort"))
	if port != listenPort(t, cfg) {
		t.Errorf("containerPort %s, but the server listens on %s", port, cfg.Server.Listen)
	}
	portName := dig(ctr, "ports", 0, "name")
	for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz", "startupProbe": ""} {
		got := fmt.Sprint(dig(ctr, probe, "httpGet", "path"))
		if path != "" && got != path {
			t.Errorf("%s path %s, want %s", probe, got, path)
		}
		checkProbe(t, "Deployment "+probe, got)
		if p := dig(ctr, probe, "httpGet", "port"); p != portName {
			t.Errorf("%s port %v, want the container's port %v", probe, p, portName)
		}
	}
	if p := dig(objs["Service"], "spec", "ports", 0, "targetPort"); p != portName {
		t.Errorf("Service targetPort %v, want the container's port %v", p, portName)
	}
	labels := dig(dep, "spec", "template", "metadata", "labels").(map[string]any)
	for _, sel := range []any{dig(objs["Service"], "spec", "selector"), dig(objs["PodDisruptionBudget"], "spec", "selector", "matchLabels")} {
		for k, v := range sel.(map[string]any) {
			if labels[k] != v {
				t.Errorf("selector %s=%v does not match the pods' labels %v", k, v, labels)
			}
		}
	}
	if n := dig(objs["PodDisruptionBudget"], "spec", "minAvailable"); n != 2 {
		t.Errorf("PodDisruptionBudget minAvailable %v, want 2", n)
	}
	checkKubeSecurity(t, pod, ctr)
	checkMemoryLimit(t, ctr)
	preStop, _ := dig(ctr, "lifecycle", "preStop", "sleep", "seconds").(int)
	grace, _ := dig(pod, "terminationGracePeriodSeconds").(int)
	checkStopTimeout(t, "terminationGracePeriodSeconds less the preStop sleep", time.Duration(grace-preStop)*time.Second, cfg)
}

// kubeLaunch is how the Deployment runs the image: its args, the image's
// environment under the container's (a Secret's value is unknown here,
// so empty), and the ConfigMap's files where they are mounted.
func kubeLaunch(t *testing.T, pod, ctr any, cm map[string]any, img image) launch {
	t.Helper()
	env := map[string]string{}
	for k, v := range img.env {
		env[k] = v
	}
	docs := readDeploy(t, filepath.Join("..", "docs", "deploy.md"))
	for _, e := range dig(ctr, "env").([]any) {
		name := fmt.Sprint(dig(e, "name"))
		env[name] = ""
		if v, ok := dig(e, "value").(string); ok {
			env[name] = v
		}
		if ref := dig(e, "valueFrom", "secretKeyRef"); ref != nil {
			// The Secret is made by hand: docs/deploy.md must say how.
			if want := fmt.Sprintf("--from-literal=%v=", dig(ref, "key")); !strings.Contains(docs, want) {
				t.Errorf("%s comes from Secret key %v, which docs/deploy.md does not create (%s)", name, dig(ref, "key"), want)
			}
		}
	}
	files := map[string]string{}
	cmName := dig(cm, "metadata", "name")
	for _, m := range dig(ctr, "volumeMounts").([]any) {
		for _, v := range dig(pod, "volumes").([]any) {
			if dig(v, "name") != dig(m, "name") || dig(v, "configMap", "name") != cmName {
				continue
			}
			for key, data := range dig(cm, "data").(map[string]any) {
				local := filepath.Join(t.TempDir(), key)
				if err := os.WriteFile(local, []byte(fmt.Sprint(data)), 0o600); err != nil {
					t.Fatal(err)
				}
				files[fmt.Sprint(dig(m, "mountPath"))+"/"+key] = local
			}
		}
	}
	return launch{name: "Deployment", args: strs(t, dig(ctr, "args")), env: env, files: files}
}

func checkKubeSecurity(t *testing.T, pod, ctr any) {
	t.Helper()
	for what, v := range map[string]any{
		"runAsNonRoot":             dig(pod, "securityContext", "runAsNonRoot"),
		"readOnlyRootFilesystem":   dig(ctr, "securityContext", "readOnlyRootFilesystem"),
		"allowPrivilegeEscalation": dig(ctr, "securityContext", "allowPrivilegeEscalation") == false,
	} {
		if v != true {
			t.Errorf("Deployment: %s is not set as it should be", what)
		}
	}
	for _, res := range []string{"requests", "limits"} {
		if dig(ctr, "resources", res) == nil {
			t.Errorf("Deployment: no resources.%s", res)
		}
	}
}

// checkMemoryLimit: a container with a memory limit sets GOMEMLIMIT
// between 80% and 95% of it (docs/deploy.md, "Memory"), so that the
// collector works harder as the heap nears the limit instead of the pod
// being killed, with room left for what is not heap.
func checkMemoryLimit(t *testing.T, ctr any) {
	t.Helper()
	limit, ok := dig(ctr, "resources", "limits", "memory").(string)
	if !ok {
		return
	}
	var soft string
	for _, e := range dig(ctr, "env").([]any) {
		if dig(e, "name") == "GOMEMLIMIT" {
			soft, _ = dig(e, "value").(string)
		}
	}
	hard, err := byteSize(limit, map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30})
	if err != nil {
		t.Fatalf("resources.limits.memory %q: %v", limit, err)
	}
	got, err := byteSize(soft, map[string]int64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30})
	if err != nil {
		t.Errorf("memory limit %s but GOMEMLIMIT %q: %v", limit, soft, err)
		return
	}
	if got < hard*80/100 || got > hard*95/100 {
		t.Errorf("GOMEMLIMIT %s is not 80-95%% of the memory limit %s", soft, limit)
	}
}

// byteSize reads a whole number followed by one of units' suffixes.
func byteSize(s string, units map[string]int64) (int64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i <= 0 {
		return 0, fmt.Errorf("not a number with a unit")
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	unit, ok := units[s[i:]]
	if err != nil || !ok {
		return 0, fmt.Errorf("not a number with a unit")
	}
	return n * unit, nil
}
