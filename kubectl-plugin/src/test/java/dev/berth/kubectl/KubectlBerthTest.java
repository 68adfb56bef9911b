package dev.berth.kubectl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plugin's parts that need no cluster: flags, tables, YAML, quantities, lent, the tree. */
class KubectlBerthTest {
  private static JsonNode json(String s) throws IOException {
    return Kubectl.JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void flagsParseInEitherFormAndBadOnesNameTheFlag() throws Exception {
    Options o =
        Options.parse(new String[] {"pending", "-n", "team", "--cq=gpu", "-o", "yaml"}, true);
    assertThat(o.command()).isEqualTo("pending");
    assertThat(o.namespace()).isEqualTo("team");
    assertThat(o.clusterQueue()).isEqualTo("gpu");
    assertThat(o.output()).isEqualTo("yaml");
    assertThat(Options.parse(new String[] {"why", "job-a", "--no-color"}, true).args())
        .containsExactly("job-a");
    assertThat(Options.parse(new String[] {"queues", "--no-color"}, true).colour()).isFalse();
    assertThat(Options.parse(new String[] {"queues"}, false).colour()).isFalse();
    assertThatThrownBy(() -> Options.parse(new String[] {"pending", "-o", "xml"}, false))
        .hasMessage("--output: xml is not json or yaml");
    assertThatThrownBy(() -> Options.parse(new String[] {"pending", "--cq"}, false))
        .hasMessage("--cq needs a value");
    assertThatThrownBy(() -> Options.parse(new String[] {"pending", "--frobnicate"}, false))
        .hasMessage("unknown flag --frobnicate");
  }

  @Test
  void tablesAlignColumnsAndColourOnlyWhenAsked() {
    Table t =
        new Table("NAME", "REASON", "X")
            .row("a-long-name", Table.coloured("WaitingForQuota", Table.Colour.YELLOW), "1")
            .row("b", "Inadmissible", "22");
    List<String> plain = t.render(false).lines().toList();
    assertThat(plain)
        .containsExactly(
            "NAME          REASON            X",
            "a-long-name   WaitingForQuota   1",
            "b             Inadmissible      22");
    String coloured = t.render(true);
    assertThat(coloured)
        .contains("\u001b[33mWaitingForQuota\u001b[0m   1")
        .contains("\u001b[1mNAME\u001b[0m");
    assertThat(coloured.replaceAll("\u001b\\[[0-9;]*m", "").lines().toList()).isEqualTo(plain);
  }

  @Test
  void yamlQuotesWhatWouldOtherwiseReadAsAnotherType() throws Exception {
    String yaml =
        Printer.print(
            json(
                "{'a':'4','b':'yes','c':1,'d':null,'e':[],"
                    + "'f':[{'g':'x: y','h':true}],'i':{}}"),
            "yaml");
    assertThat(yaml)
        .isEqualTo(
            """
        a: "4"
        b: "yes"
        c: 1
        d: null
        e: []
        f:
          - g: "x: y"
            h: true
        i: {}
        """);
  }

  @Test
  void quantitiesParseAndFormatAsPeopleWriteThem() {
    assertThat(Quantities.parse("500m")).isEqualByComparingTo("0.5");
    assertThat(Quantities.parse("16Gi")).isEqualByComparingTo("17179869184");
    assertThat(Quantities.parse("2k")).isEqualByComparingTo("2000");
    assertThat(Quantities.format(new BigDecimal("0.500"))).isEqualTo("500m");
    assertThat(Quantities.format(new BigDecimal("17179869184"))).isEqualTo("16Gi");
    assertThat(Quantities.format(new BigDecimal("1.5"))).isEqualTo("1.5");
    assertThat(Quantities.format(new BigDecimal("8"))).isEqualTo("8");
  }

  @Test
  void lentIsTheUnusedLendableQuotaTheCohortBorrows() throws Exception {
    String quota =
        "'spec':{'cohortName':'ai','resourceGroups':[{'flavors':[{'name':'h100',"
            + "'resources':[{'name':'gpu','nominalQuota':'%s'%s}]}]}]}";
    JsonNode cqs =
        json(
            "{'items':["
                + "{'metadata':{'name':'lender'},"
                + quota.formatted("8", ",'lendingLimit':'4'")
                + ",'status':{'flavorsReservation':[{'name':'h100','resources':[{'name':'gpu',"
                + "'total':'2','borrowed':'0'}]}]}},"
                + "{'metadata':{'name':'borrower'},"
                + quota.formatted("2", "")
                + ",'status':{'pendingWorkloads':3,'flavorsReservation':[{'name':'h100','resources':"
                + "[{'name':'gpu','total':'7','borrowed':'5'}]}]}}]}");
    JsonNode data = QueuesCommand.fromLists(cqs, json("{'items':[]}"));
    // 6 unused, at most 4 lendable, 5 borrowed by the other: 4 lent.
    assertThat(data.at("/clusterQueues/0/resources/0/lent").asText()).isEqualTo("4");
    assertThat(data.at("/clusterQueues/1/resources/0/borrowed").asText()).isEqualTo("5");
    String table = QueuesCommand.table(data, false);
    assertThat(table).contains("borrower       ai       h100     gpu        7/2");
  }

  @Test
  void localQueuesShowTheirRecentUsageUnderAdmissionFairSharing() throws Exception {
    JsonNode lqs =
        json(
            "{'items':[{'metadata':{'namespace':'ml','name':'busy'},'spec':{'clusterQueue':'cq'},"
                + "'status':{'fairSharing':{'admissionFairSharingStatus':{'consumedResources':"
                + "{'cpu':'0.002750111','nvidia.com/gpu':'12.34567'},"
                + "'lastUpdate':'2026-12-07T15:00:00Z'}}}},"
                + "{'metadata':{'namespace':'ml','name':'plain'},'spec':{'clusterQueue':'other'}}]}");
    JsonNode data = QueuesCommand.fromLists(json("{'items':[]}"), lqs);
    assertThat(data.at("/localQueues/0/recentUsage").asText())
        .isEqualTo("cpu 2.75m, nvidia.com/gpu 12.3");
    assertThat(data.at("/localQueues/1/recentUsage").asText()).isEqualTo("-");
    List<String> lines = QueuesCommand.table(data, false).lines().toList();
    assertThat(lines).anyMatch(l -> l.contains("RECENT USAGE"));
    assertThat(lines)
        .anyMatch(l -> l.startsWith("ml") && l.endsWith("cpu 2.75m, nvidia.com/gpu 12.3"));
  }

  @Test
  void cohortsFormATreeWithImplicitParents() throws Exception {
    JsonNode cohorts =
        json(
            "{'items':[{'metadata':{'name':'child'},'spec':{'parentName':'root'"
                + ",'fairSharing':{'weight':'2'}},'status':{'fairSharing':{'weightedShare':1500}}}]}");
    JsonNode cqs =
        json(
            "{'items':[{'metadata':{'name':'a'},'spec':{'cohortName':'child'}},"
                + "{'metadata':{'name':'b'},'spec':{'cohortName':'child'}},"
                + "{'metadata':{'name':'alone'},'spec':{}}]}");
    List<String> lines =
        CohortsCommand.table(CohortsCommand.fromLists(cohorts, cqs), false).lines().toList();
    assertThat(lines)
        .containsExactly(
            "NAME       KIND                NOMINAL QUOTA   WEIGHT   WEIGHTED SHARE",
            "root       Cohort (implicit)                   -        0.000",
            "└─ child   Cohort                              2        1.500",
            "   ├─ a    ClusterQueue                        1        0.000",
            "   └─ b    ClusterQueue                        1        0.000",
            "alone      ClusterQueue                        -        0.000");
  }

  @Test
  void estimatesReadAsTimeFromNow() throws Exception {
    Instant now = Instant.parse("2026-12-01T16:00:00Z");
    assertThat(PendingCommand.estimate(json("'2026-12-01T16:12:00Z'"), now))
        .isEqualTo("in 12m (2026-12-01T16:12Z)");
    assertThat(PendingCommand.estimate(json("'2026-12-01T19:30:00Z'"), now))
        .isEqualTo("in 3h30m (2026-12-01T19:30Z)");
    assertThat(PendingCommand.estimate(json("null"), now)).isEqualTo("unknown");
  }

  @Test
  void pendingNamesEachOwnerAndItsOwnState() throws Exception {
    JsonNode data =
        json(
            "{'items':[{'clusterQueue':'cq','positionInClusterQueue':0,'namespace':'ml',"
                + "'name':'rayjob-train-1a2b3','localQueueName':'lq','positionInLocalQueue':0,"
                + "'priority':0,'reason':'WaitingForQuota','message':'m',"
                + "'owner':{'kind':'RayJob','name':'train','count':1,'status':'Suspended'}},"
                + "{'clusterQueue':'cq','positionInClusterQueue':1,'namespace':'ml',"
                + "'name':'pod-group-web','localQueueName':'lq','positionInLocalQueue':1,"
                + "'priority':0,'reason':'WaitingForQuota','message':'m',"
                + "'owner':{'kind':'Pod','name':'web-0','count':4,'status':'Gated 4'}},"
                + "{'clusterQueue':'cq','positionInClusterQueue':2,'namespace':'ml',"
                + "'name':'by-hand','localQueueName':'lq','positionInLocalQueue':2,"
                + "'priority':0,'reason':'WaitingForQuota','message':'m','owner':null}]}");
    List<String> lines =
        PendingCommand.table(data, false, Instant.parse("2026-12-01T16:00:00Z")).lines().toList();
    String header = lines.get(0);
    int owner = header.indexOf("OWNER ");
    int state = header.indexOf("OWNER STATUS");
    assertThat(owner).isPositive();
    assertThat(lines.get(1).substring(owner)).startsWith("RayJob/train ");
    assertThat(lines.get(1).substring(state)).startsWith("Suspended ");
    assertThat(lines.get(2).substring(owner)).startsWith("Pod/web-0 +3 ");
    assertThat(lines.get(2).substring(state)).startsWith("Gated 4 ");
    assertThat(lines.get(3).substring(owner, state).trim()).isEmpty();
  }

  @Test
  void theTrainingRunRendersEverythingWithoutACluster() throws Exception {
    var bytes = new java.io.ByteArrayOutputStream();
    KubectlBerth.training(new java.io.PrintStream(bytes, true, "UTF-8"));
    assertThat(bytes.toString("UTF-8")).contains("team-a").contains("└─ team-a");
  }
}
