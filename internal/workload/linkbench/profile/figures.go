package profile

// The settings of the built-in profiles. "properties" is the profile's
// config/FBWorkload.properties in its repository; the Java files are in the reference's
// src/main/java/com/facebook/LinkBench/. The CDFs (Dist) come from config/Distribution.dat of
// the same repository, through fb2011.cdf and fb2017.cdf.

// fb2011 is the original workload: facebookarchive/linkbench.
func fb2011() Profile {
	return Profile{
		Name:   "fb2011",
		Source: "facebookarchive/linkbench config/FBWorkload.properties and config/Distribution.dat",
		Mix: [NumOps]float64{ // properties: addlink ... getnode
			AddLink:      8.9886601,
			DeleteLink:   2.9907664,
			UpdateLink:   8.0122125,
			CountLink:    4.8863567,
			MultigetLink: 0.5261142, // getlink
			GetLinksList: 50.7119145,
			AddNode:      2.5732789,
			UpdateNode:   7.366437,
			DeleteNode:   1.0115914,
			GetNode:      12.9326683,
		},
		HistoryPct: 0.3, // properties: getlinklist_history
		LinkTypes:  2,   // properties: link_type_count

		ReadCorr:        Access{Zipf, 0.8},   // properties: read_function, read_shape
		ReadUncorr:      Access{Zipf, 0.8},   // properties: read_uncorr_function, read_uncorr_shape
		ReadUncorrBlend: 99.5,                // properties: read_uncorr_blend
		WriteCorr:       Access{Zipf, 0.741}, // properties: write_function, write_shape
		// properties: write_uncorr_shape (it names no write_uncorr_function: zipf as for
		// writes). The reference reads read_uncorr_* instead (Config.java:
		// WRITE_UNCORR_CONFIG_PREFIX), and so does its variant (gen.NewLinkWrites).
		WriteUncorr:      Access{Zipf, 0.741},
		WriteUncorrBlend: 95,                  // properties: write_uncorr_blend
		NodeRead:         Access{Zipf, 0.625}, // properties: node_read_function, node_read_shape
		NodeUpdate:       Access{Zipf, 0.606}, // properties: node_update_function, node_update_shape
		NodeDelete:       Access{Uniform, 0},  // properties: node_delete_function

		MultigetMin: 1,     // properties: link_multiget_dist_min
		MultigetMax: 128,   // properties: link_multiget_dist_max
		MultigetP:   0.382, // properties: link_multiget_dist_prob

		LinkDataMedian: 8,   // properties: link_datasize
		NodeDataMedian: 128, // properties: node_datasize
		DataSigma:      1.0, // Config.java: LINK_DATASIZE_SIGMA, NODE_DATASIZE_SIGMA

		// properties: link_add_datagen_{startbyte,endbyte,uniqueness,motif_length}; the
		// reference never reads motif_length (gen.ReferenceMotifLength)
		LinkAddMotif: Motif{Start: 32, End: 100, Uniqueness: 0.225, Length: 128},
		// properties: link_up_datagen_*
		LinkUpdateMotif: Motif{Start: 32, End: 100, Uniqueness: 0.225, Length: 128},
		// properties: node_add_datagen_*; no motif_length there, so the generator's default
		// (generators/MotifDataGenerator.java: DEFAULT_MOTIF_BUFFER_SIZE)
		NodeAddMotif: Motif{Start: 50, End: 220, Uniqueness: 0.63, Length: 512},
		// properties: node_up_datagen_*, likewise
		NodeUpdateMotif: Motif{Start: 50, End: 220, Uniqueness: 0.63, Length: 512},
	}
}

// fb2017 is the 2017 refresh: mdcallag/linkbench. Its properties change only the op mix and
// the payload medians; everything else is as in fb2011.
func fb2017() Profile {
	p := fb2011()
	p.Name = "fb2017"
	p.Source = "mdcallag/linkbench config/FBWorkload.properties and config/Distribution.dat"
	p.Mix = [NumOps]float64{ // properties: addlink ... getnode
		AddLink:      5.35038,
		DeleteLink:   0.98401,
		UpdateLink:   4.75589,
		CountLink:    4.27898,
		MultigetLink: 12.14725, // getlink
		GetLinksList: 22.57039,
		AddNode:      2.61198,
		UpdateNode:   3.06256,
		DeleteNode:   0.25166,
		GetNode:      43.9869,
	}
	p.LinkDataMedian = 23  // properties: link_datasize
	p.NodeDataMedian = 168 // properties: node_datasize
	return p
}
