import java.io.BufferedReader;
import java.io.FileReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.risk.RiskModelHistogram;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;

import com.carrotsearch.hppc.IntIntOpenHashMap;

/**
 * ARX 3.9's population uniqueness estimates at full precision, for benchmarks/arx_population_reference.py: as
 * ../shared/tools/arx/ArxRisk.java prints them, with every digit of a double and null for each model ARX says has
 * no estimate (isAvailableEstimate), from a table or from a class-size histogram given directly.
 *
 *   java -cp "arx-core.jar:lib/*:BUILD" ArxPopulation csv TABLE.csv QI,QI,... FRACTION...
 *   java -cp "arx-core.jar:lib/*:BUILD" ArxPopulation histogram SIZE:COUNT,SIZE:COUNT,... POPULATION...
 *
 * One JSON line per fraction (the population is ARXPopulationModel.create(rows, fraction)) or per population size.
 */
public class ArxPopulation {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("csv")) {
            String csv = args[1];
            List<String> qis = Arrays.asList(args[2].split(","));
            Data data = Data.create(csv, StandardCharsets.UTF_8, ';');
            String[] header;
            try (BufferedReader reader = new BufferedReader(new FileReader(csv, StandardCharsets.UTF_8))) {
                header = reader.readLine().split(";");
            }
            for (String a : header) {
                data.getDefinition().setAttributeType(a, qis.contains(a) ? AttributeType.QUASI_IDENTIFYING_ATTRIBUTE
                                                                         : AttributeType.INSENSITIVE_ATTRIBUTE);
            }
            DataHandle handle = data.getHandle();
            for (int a = 3; a < args.length; a++) {
                ARXPopulationModel model = ARXPopulationModel.create(handle.getNumRows(), Double.parseDouble(args[a]));
                print(args[a], model, handle.getRiskEstimator(model).getPopulationBasedUniquenessRisk());
            }
        } else {
            IntIntOpenHashMap distribution = new IntIntOpenHashMap();
            for (String pair : args[1].split(",")) {
                String[] parts = pair.split(":");
                distribution.put(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
            }
            for (int a = 2; a < args.length; a++) {
                ARXPopulationModel model = ARXPopulationModel.create(Long.parseLong(args[a]));
                RiskModelHistogram histogram = new RiskModelHistogram(distribution);
                print(args[a], model, new RiskModelPopulationUniqueness(model, histogram, ARXSolverConfiguration.create()));
            }
        }
    }

    private static void print(String argument, ARXPopulationModel model, RiskModelPopulationUniqueness risk) {
        System.out.printf(Locale.ROOT,
                          "{\"argument\": \"%s\", \"population\": %d, \"zayatz\": %s, \"pitman\": %s, \"snb\": %s, "
                                  + "\"dankar\": %s, \"model\": \"%s\"}%n",
                          argument, model.getPopulationSize(), figure(risk, PopulationUniquenessModel.ZAYATZ),
                          figure(risk, PopulationUniquenessModel.PITMAN), figure(risk, PopulationUniquenessModel.SNB),
                          figure(risk, PopulationUniquenessModel.DANKAR), risk.getPopulationUniquenessModel());
    }

    /** A model's fraction of population uniques, every digit, or null where ARX says it has no estimate. */
    private static String figure(RiskModelPopulationUniqueness risk, PopulationUniquenessModel model) {
        return risk.isAvailableEstimate(model) ? Double.toString(risk.getFractionOfUniqueTuples(model)) : "null";
    }
}
