package dev.berth.kubectl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.time.YearMonth;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** create, list, stop/resume and usage without a cluster: flags, objects built, rows, tables. */
class KueuectlCommandsTest {
  private static JsonNode json(String s) throws IOException {
    return Kubectl.JSON.readTree(s.replace('\'', '"'));
  }

  private static Options parse(String... argv) throws Options.UsageError {
    return Options.parse(argv, false);
  }

  @Test
  void nominalQuotaInKueuectlsFormBecomesResourceGroups() throws Exception {
    JsonNode cq =
        CreateCommand.clusterQueue(
            parse(
                "create",
                "clusterqueue",
                "team-llm",
                "--cohort=ai",
                "--namespace-selector",
                "berth.dev/team=llm,tier=gold",
                "--queuing-strategy",
                "StrictFIFO",
                "--reclaim-within-cohort=Any",
                "--preemption-within-cluster-queue=LowerPriority",
                "--nominal-quota",
                "h100:nvidia.com/gpu=16;cpu=64,a100:nvidia.com/gpu=8;cpu=32,default:memory=36Gi",
                "--borrowing-limit",
                "h100:nvidia.com/gpu=8",
                "--lending-limit=a100:cpu=500m"));
    assertThat(cq.toString())
        .isEqualTo(
            json("{'apiVersion':'berth.dev/v1beta1','kind':'ClusterQueue',"
                    + "'metadata':{'name':'team-llm'},'spec':{'cohortName':'ai',"
                    + "'namespaceSelector':{'matchLabels':{'berth.dev/team':'llm','tier':'gold'}},"
                    + "'queueingStrategy':'StrictFIFO','preemption':{'reclaimWithinCohort':'Any',"
                    + "'withinClusterQueue':'LowerPriority'},'resourceGroups':["
                    + "{'coveredResources':['nvidia.com/gpu','cpu'],'flavors':["
                    + "{'name':'h100','resources':[{'name':'nvidia.com/gpu','nominalQuota':'16',"
                    + "'borrowingLimit':'8'},{'name':'cpu','nominalQuota':'64'}]},"
                    + "{'name':'a100','resources':[{'name':'nvidia.com/gpu','nominalQuota':'8'},"
                    + "{'name':'cpu','nominalQuota':'32','lendingLimit':'500m'}]}]},"
                    + "{'coveredResources':['memory'],'flavors':[{'name':'default','resources':"
                    + "[{'name':'memory','nominalQuota':'36Gi'}]}]}]}}")
                .toString());
    // Without a selector none is written: {} would manage every namespace.
    assertThat(CreateCommand.clusterQueue(parse("create", "cq", "bare")).path("spec").isEmpty())
        .isTrue();
  }

  @Test
  void badCreateFlagsAreRefusedNamingTheFlag() {
    assertRefused(
        "--nominal-quota: \"cpu=9\" is not FLAVOR:RESOURCE=QUANTITY", "--nominal-quota", "cpu=9");
    assertRefused(
        "--nominal-quota: \"cpu\" of flavor default is not RESOURCE=QUANTITY",
        "--nominal-quota",
        "default:cpu");
    assertRefused(
        "--nominal-quota: default:cpu: \"nine\" is not a non-negative quantity",
        "--nominal-quota",
        "default:cpu=nine");
    assertRefused(
        "--nominal-quota: default:cpu: \"-1\" is not", "--nominal-quota", "default:cpu=-1");
    assertRefused(
        "--nominal-quota: flavor \"Default\" is not a valid ResourceFlavor name",
        "--nominal-quota",
        "Default:cpu=1");
    assertRefused("--nominal-quota: flavor a is given twice", "--nominal-quota", "a:cpu=1,a:cpu=2");
    assertRefused(
        "--nominal-quota: flavors a and b both cover cpu but not the same resources",
        "--nominal-quota",
        "a:cpu=1,b:cpu=1;memory=1Gi");
    assertRefused(
        "--borrowing-limit: b:cpu has no --nominal-quota",
        "--nominal-quota",
        "a:cpu=1",
        "--borrowing-limit",
        "b:cpu=1");
    assertRefused(
        "--queuing-strategy: \"Fifo\" is not one of BestEffortFIFO, StrictFIFO",
        "--queuing-strategy",
        "Fifo");
    assertRefused(
        "--namespace-selector: \"team\" is not KEY=VALUE", "--namespace-selector", "team");
    assertRefused("--cohort: \"AI\" is not a valid cohort name", "--cohort", "AI");
    assertRefused("--status is not a flag of create clusterqueue", "--status", "pending");
    assertThatThrownBy(
            () -> CreateCommand.clusterQueue(parse("create", "clusterqueue", "Bad_Name")))
        .hasMessageStartingWith("NAME: \"Bad_Name\" is not a valid name");
    assertThatThrownBy(() -> CreateCommand.localQueue(parse("create", "lq", "training")))
        .hasMessageStartingWith("--clusterqueue (-c) is required");
    assertThatThrownBy(
            () -> Options.parse(new String[] {"create", "cq", "x", "--nominal-quota"}, false))
        .hasMessage("--nominal-quota needs a value");
  }

  private static void assertRefused(String message, String... flags) {
    String[] argv = new String[flags.length + 3];
    argv[0] = "create";
    argv[1] = "clusterqueue";
    argv[2] = "q";
    System.arraycopy(flags, 0, argv, 3, flags.length);
    assertThatThrownBy(() -> CreateCommand.clusterQueue(parse(argv)))
        .hasMessageStartingWith(message);
  }

  @Test
  void localQueueTakesItsNamespaceAndClusterQueue() throws Exception {
    JsonNode lq =
        CreateCommand.localQueue(
            parse("create", "localqueue", "training", "-c", "llm", "-n", "team"));
    assertThat(lq.toString())
        .isEqualTo(
            json("{'apiVersion':'berth.dev/v1beta1','kind':'LocalQueue','metadata':{'name':'training',"
                    + "'namespace':'team'},'spec':{'clusterQueue':'llm'}}")
                .toString());
  }

  @Test
  void stopAndResumePatchStopPolicyOrActive() {
    assertThat(StopCommand.patch("clusterqueue", true, false).toString())
        .isEqualTo("{\"spec\":{\"stopPolicy\":\"HoldAndDrain\"}}");
    assertThat(StopCommand.patch("localqueue", true, true).toString())
        .isEqualTo("{\"spec\":{\"stopPolicy\":\"Hold\"}}");
    assertThat(StopCommand.patch("clusterqueue", false, false).toString())
        .isEqualTo("{\"spec\":{\"stopPolicy\":\"None\"}}");
    assertThat(StopCommand.patch("workload", true, false).toString())
        .isEqualTo("{\"spec\":{\"active\":false}}");
    assertThat(StopCommand.patch("workload", false, false).toString())
        .isEqualTo("{\"spec\":{\"active\":true}}");
  }

  private static final String WORKLOADS =
      "{'items':["
          + "{'metadata':{'name':'job-a-1','namespace':'t','creationTimestamp':'2026-12-01T15:00:00Z',"
          + "'ownerReferences':[{'kind':'Job','name':'a'}]},'spec':{'queueName':'training'},"
          + "'status':{'admission':{'clusterQueue':'llm'},'conditions':["
          + "{'type':'QuotaReserved','status':'True','lastTransitionTime':'2026-12-01T15:10:00Z'},"
          + "{'type':'Admitted','status':'True','lastTransitionTime':'2026-12-01T15:10:00Z'}]}},"
          + "{'metadata':{'name':'job-b-2','namespace':'t','creationTimestamp':'2026-12-01T15:59:00Z',"
          + "'ownerReferences':[{'kind':'JobSet','name':'b'}]},'spec':{'queueName':'training',"
          + "'active':false},'status':{'conditions':[{'type':'QuotaReserved','status':'False'}]}},"
          + "{'metadata':{'name':'other','namespace':'t','creationTimestamp':'2026-11-28T16:00:00Z'},"
          + "'spec':{'queueName':'batch'},'status':{'conditions':["
          + "{'type':'Admitted','status':'True','lastTransitionTime':'2026-11-28T16:00:00Z'},"
          + "{'type':'Finished','status':'True','lastTransitionTime':'2026-11-28T19:00:00Z'}]}}]}";
  private static final String LQS =
      "{'items':[{'metadata':{'name':'training','namespace':'t'},'spec':{'clusterQueue':'llm'}},"
          + "{'metadata':{'name':'batch','namespace':'t'},'spec':{'clusterQueue':'cpu'}}]}";

  @Test
  void workloadsAreFilteredByQueueAndStatusAndShownAsKueuectlDoes() throws Exception {
    Instant now = Instant.parse("2026-12-01T16:00:00Z");
    Set<String> all = ListCommand.statuses(null);
    JsonNode rows = ListCommand.workloads(json(WORKLOADS), json(LQS), null, null, all, now);
    List<String> lines = ListCommand.table("workload", rows, false, false).lines().toList();
    assertThat(lines)
        .containsExactly(
            "NAME      JOB TYPE   JOB NAME   LOCALQUEUE   CLUSTERQUEUE   STATUS     ACTIVE   EXEC TIME   AGE",
            "job-a-1   Job        a          training     llm            ADMITTED   true     50m         60m",
            "job-b-2   JobSet     b          training     llm            PENDING    false                60s",
            "other                           batch        cpu            FINISHED   true     3h          3d");
    // The pending one's ClusterQueue comes from its LocalQueue.
    assertThat(names(ListCommand.workloads(json(WORKLOADS), json(LQS), "llm", null, all, now)))
        .containsExactly("job-a-1", "job-b-2");
    assertThat(
            names(
                ListCommand.workloads(
                    json(WORKLOADS),
                    json(LQS),
                    null,
                    "training",
                    ListCommand.statuses("pending"),
                    now)))
        .containsExactly("job-b-2");
    assertThat(
            names(
                ListCommand.workloads(
                    json(WORKLOADS),
                    json(LQS),
                    null,
                    null,
                    ListCommand.statuses("admitted,finished"),
                    now)))
        .containsExactly("job-a-1", "other");
    assertThat(ListCommand.table("workload", rows, true, false).lines().findFirst().orElseThrow())
        .startsWith("NAMESPACE   NAME");
    assertThatThrownBy(() -> ListCommand.statuses("running"))
        .hasMessage(
            "--status: \"running\" is not all, pending, quotareserved, admitted or finished");
  }

  private static List<String> names(JsonNode rows) {
    return java.util.stream.StreamSupport.stream(rows.path("items").spliterator(), false)
        .map(r -> r.path("name").asText())
        .toList();
  }

  @Test
  void queuesShowCountsActiveAndStopPolicy() throws Exception {
    Instant now = Instant.parse("2026-12-01T16:00:00Z");
    JsonNode cqs =
        json(
            "{'items':[{'metadata':{'name':'llm','creationTimestamp':'2026-12-01T13:00:00Z'},"
                + "'spec':{'cohortName':'ai','stopPolicy':'Hold'},'status':{'pendingWorkloads':3,"
                + "'admittedWorkloads':1,'conditions':[{'type':'Active','status':'False'}]}},"
                + "{'metadata':{'name':'cpu','creationTimestamp':'2026-12-01T13:00:00Z'},'spec':{},"
                + "'status':{'conditions':[{'type':'Active','status':'True'}]}}]}");
    assertThat(
            ListCommand.table(
                "clusterqueue", ListCommand.clusterQueues(cqs, null, now), false, false))
        .isEqualTo(
            """
            NAME   COHORT   PENDING WORKLOADS   ADMITTED WORKLOADS   ACTIVE   STOP POLICY   AGE
            llm    ai       3                   1                    false    Hold          3h
            cpu             0                   0                    true     None          3h
            """);
    assertThat(names(ListCommand.clusterQueues(cqs, "true", now))).containsExactly("cpu");
    assertThat(
            ListCommand.table(
                "localqueue", ListCommand.localQueues(json(LQS), "cpu", now), true, false))
        .isEqualTo(
            """
            NAMESPACE   NAME    CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS   STOP POLICY   AGE
            t           batch   cpu            0                   0                    None
            """);
  }

  @Test
  void usageSumsReportsOfTheMonthsAsTheOperatorsUsageDoes() throws Exception {
    String entry =
        "{'localQueue':'%s','clusterQueue':'llm','costCentre':'cc-1','flavor':'h100',"
            + "'resource':'nvidia.com/gpu','runs':%d,'resourceSeconds':'%s'%s}";
    JsonNode reports =
        json(
            "{'items':[{'metadata':{'namespace':'t'},'spec':{'month':'2026-11'},'status':{'entries':["
                + entry.formatted(
                    "training",
                    2,
                    "7200",
                    ",'measuredResourceSeconds':'7200'," + "'usedResourceSeconds':'3600'")
                + ","
                + entry.formatted("batch", 1, "1800", "")
                + "]}},{'metadata':{'namespace':'t'},'spec':{'month':'2026-12'},'status':{'entries':["
                + entry.formatted("training", 1, "3600", "")
                + "]}}]}");
    JsonNode november =
        UsageCommand.sum(reports, "namespace", YearMonth.of(2026, 11), YearMonth.of(2026, 12));
    assertThat(november.toString())
        .isEqualTo(
            json("{'by':'namespace','rows':[{'namespace':'t','flavor':'h100','resource':'nvidia.com/gpu',"
                    + "'resourceSeconds':'9000','resourceHours':'2.5','measuredResourceSeconds':'7200',"
                    + "'usedResourceSeconds':'3600','usedResourceHours':'1','utilization':'0.5',"
                    + "'runs':3}]}")
                .toString());
    assertThat(UsageCommand.table(UsageCommand.sum(reports, "localqueue", null, null)))
        .isEqualTo(
            """
            LOCALQUEUE   FLAVOR   RESOURCE         RUNS   RESOURCE-HOURS   USED-HOURS   UTILIZATION
            t/batch      h100     nvidia.com/gpu   1      0.5
            t/training   h100     nvidia.com/gpu   3      3                1            0.5
            """);
    assertThat(
            UsageCommand.table(UsageCommand.sum(reports, "namespace", YearMonth.of(2027, 1), null)))
        .isEqualTo("No usage recorded.\n");
    assertThatThrownBy(() -> UsageCommand.data(parse("usage", "--by", "team"), null))
        .hasMessage("--by: \"team\" is not namespace, localqueue, clusterqueue or cost-centre");
    assertThatThrownBy(() -> UsageCommand.data(parse("usage", "--from", "last-month"), null))
        .hasMessage("--from: \"last-month\" is not a month such as 2026-12");
  }

  @Test
  void budgetsShowEachResourcesWindow() throws Exception {
    JsonNode budgets =
        json(
            "{'items':[{'metadata':{'name':'llm-gpu'},'spec':{'localQueue':{'namespace':'team-llm',"
                + "'name':'train'},'period':'Month','timeZone':'UTC','limits':[{'resource':"
                + "'nvidia.com/gpu','hours':'20000'}]},'status':{'window':'2026-12','exhausted':true,"
                + "'resetsAt':'2027-01-01T00:00:00Z','resources':[{'resource':'nvidia.com/gpu',"
                + "'usedHours':'20013.5','limitHours':'20000'}]}},"
                + "{'metadata':{'name':'new'},'spec':{'costCentre':'cc-1','period':'Day',"
                + "'timeZone':'Europe/Berlin','limits':[{'resource':'cpu','hours':'10'}]}}]}");
    assertThat(BudgetsCommand.table(budgets))
        .isEqualTo(
            """
            NAME      TARGET                      PERIOD              WINDOW    RESOURCE         USED-HOURS   LIMIT-HOURS   EXHAUSTED   RESETS
            llm-gpu   LocalQueue team-llm/train   Month UTC           2026-12   nvidia.com/gpu   20013.5      20000         true        2027-01-01T00:00:00Z
            new       cost centre cc-1            Day Europe/Berlin             cpu                           10
            """);
    assertThat(BudgetsCommand.table(json("{'items':[]}"))).isEqualTo("No budgets.\n");
    assertThatThrownBy(() -> BudgetsCommand.data(parse("budgets", "x"), null))
        .hasMessage("budgets takes no arguments or flags but -o");
  }

  @Test
  void aBudgetThatRunsOnIdleCapacitySaysSoAndSoDoesItsWorkload() throws Exception {
    JsonNode budgets =
        json(
            "{'items':[{'metadata':{'name':'research'},'spec':{'clusterQueue':'research',"
                + "'period':'Week','timeZone':'UTC','whenExhausted':'RunOnIdleCapacity','limits':"
                + "[{'resource':'cpu','hours':'10'}]},'status':{'window':'2026-W50','exhausted':true,"
                + "'resetsAt':'2026-12-14T00:00:00Z','resources':[{'resource':'cpu',"
                + "'usedHours':'12','limitHours':'10'}]}}]}");
    assertThat(BudgetsCommand.table(budgets)).contains("  true (RunOnIdleCapacity)  ");

    JsonNode why =
        json(
            "{'workload':'team/job-a','localQueue':'train','state':'Admitted',"
                + "'onIdleCapacity':'admitted on idle capacity, the first to be preempted'}");
    assertThat(WhyCommand.text(why, false, java.time.Instant.EPOCH))
        .contains("Idle capacity:   admitted on idle capacity, the first to be preempted\n");
  }

  @Test
  void helpIsChosenByTheWordsBeforeIt() throws Exception {
    Options o = parse("create", "clusterqueue", "--help");
    assertThat(o.help()).isTrue();
    assertThat(Help.of(o.command(), o.args()))
        .startsWith("Create a ClusterQueue with the given name.")
        .contains("--nominal-quota=''")
        .contains("Usage:\n  kubectl berth create clusterqueue NAME [options]");
    assertThat(Help.of("create", List.of())).contains("Available Commands:");
    assertThat(Help.of("list", List.of("wl"))).startsWith("List Workloads");
    assertThat(Help.of("stop", List.of("workload"))).contains("spec.active: false");
    assertThat(Help.of(null, List.of())).isEqualTo(Options.USAGE);
    assertThat(Help.seeAlso("create", List.of("cq", "x")))
        .isEqualTo("See 'kubectl berth create clusterqueue --help' for usage.");
    assertThat(Help.seeAlso("usage", List.of()))
        .isEqualTo("See 'kubectl berth usage --help' for usage.");
  }

  @Test
  void kubectlsErrorBecomesOneLine() {
    assertThat(Kubectl.oneLine("error: one\n  two\n")).isEqualTo("one; two");
    assertThat(Kubectl.oneLine("Error from server (Forbidden): x is forbidden\n"))
        .isEqualTo("Error from server (Forbidden): x is forbidden");
  }
}
